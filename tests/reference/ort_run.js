#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Runs one ONNX model with onnxruntime-node on the CPU: the independent
// reference for vkserve's outputs.
//
// Usage:
//   node tests/reference/ort_run.js MODEL OUTDIR [--input NAME=FILE.npy]...
//       Feeds each named input from its .npy file (every model input must be
//       given) and writes each output to OUTDIR/<name>.npy, the name with
//       every character outside [A-Za-z0-9._-] replaced by '_'. Prints one
//       line per output: name, type, dims and file.
//   node tests/reference/ort_run.js MODEL [OUTDIR] --convert-ort OUT.ort
//       [--level basic|extended|all]
//       Instead of running, writes the model as onnxruntime optimized it
//       (ORT format, since OUT ends in .ort) at that graph optimization level
//       (default: extended, the portable one).
// Exit status: 0 success, 1 onnxruntime or file error, 2 usage error.
//
// .npy support (read and write): format 1.0-3.0, little-endian, C order;
// dtypes <f4 <f8 <f2 <i8 <i4 <i2 |i1 <u8 <u4 <u2 |u1 |b1.
'use strict';

const fs = require('fs');
const path = require('path');

const ORT_DIR = path.join(__dirname, 'node_modules', 'onnxruntime-node');

class UsageError extends Error {}

// ---- .npy -----------------------------------------------------------------

// numpy descr <-> onnxruntime type and the typed array holding its elements.
const DTYPES = [
  { descr: '<f4', ort: 'float32', Array: Float32Array },
  { descr: '<f8', ort: 'float64', Array: Float64Array },
  { descr: '<f2', ort: 'float16', Array: Uint16Array },
  { descr: '<i8', ort: 'int64', Array: BigInt64Array },
  { descr: '<i4', ort: 'int32', Array: Int32Array },
  { descr: '<i2', ort: 'int16', Array: Int16Array },
  { descr: '|i1', ort: 'int8', Array: Int8Array },
  { descr: '<u8', ort: 'uint64', Array: BigUint64Array },
  { descr: '<u4', ort: 'uint32', Array: Uint32Array },
  { descr: '<u2', ort: 'uint16', Array: Uint16Array },
  { descr: '|u1', ort: 'uint8', Array: Uint8Array },
  { descr: '|b1', ort: 'bool', Array: Uint8Array },
];

// Byte-order spellings numpy may use for the same dtype.
function canonicalDescr(descr) {
  if (descr.length < 2) return descr;
  const order = descr[0];
  const rest = descr.slice(1);
  if (rest === 'i1' || rest === 'u1' || rest === 'b1') {
    return order === '|' || order === '<' || order === '=' ? `|${rest}` : descr;
  }
  return order === '=' ? `<${rest}` : descr;
}

// Parses the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
function parseHeader(text, file) {
  const field = (key, pattern) => {
    const m = text.match(new RegExp(`['"]${key}['"]\\s*:\\s*(${pattern})`));
    if (!m) throw new Error(`${file}: npy header has no valid '${key}': ${text.trim()}`);
    return m[1];
  };
  const descr = field('descr', `'[^']*'|"[^"]*"`).slice(1, -1);
  const fortran = field('fortran_order', 'True|False');
  const shapeText = field('shape', '\\([^)]*\\)');
  const parts = shapeText.slice(1, -1).split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const dims = parts.map((s) => {
    if (!/^\d+L?$/.test(s)) throw new Error(`${file}: bad npy dimension '${s}'`);
    return Number.parseInt(s, 10);
  });
  if (dims.some((d) => !Number.isSafeInteger(d))) throw new Error(`${file}: npy dimension too large`);
  return { descr, fortran: fortran === 'True', dims };
}

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`${file}: not an .npy file`);
  }
  const major = buf[6];
  let headerLen;
  let start;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    start = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) throw new Error(`${file}: truncated npy header`);
    headerLen = buf.readUInt32LE(8);
    start = 12;
  } else {
    throw new Error(`${file}: unsupported npy format version ${major}`);
  }
  if (start + headerLen > buf.length) throw new Error(`${file}: truncated npy header`);
  const header = parseHeader(buf.toString(major === 3 ? 'utf8' : 'latin1', start, start + headerLen), file);
  if (header.fortran) throw new Error(`${file}: Fortran-order arrays are not supported`);
  const info = DTYPES.find((t) => t.descr === canonicalDescr(header.descr));
  if (!info) throw new Error(`${file}: unsupported npy dtype '${header.descr}'`);
  const count = header.dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  const bytes = count * info.Array.BYTES_PER_ELEMENT;
  if (buf.length - offset !== bytes) {
    throw new Error(`${file}: ${buf.length - offset} data bytes, but ${header.descr} ` +
                    `shape (${header.dims.join(', ')}) needs ${bytes}`);
  }
  // Copy into a fresh (aligned) buffer for the typed array.
  const data = new info.Array(count);
  new Uint8Array(data.buffer).set(buf.subarray(offset, offset + bytes));
  return { type: info.ort, dims: header.dims, data };
}

function encodeNpy(type, dims, data, what) {
  const info = DTYPES.find((t) => t.ort === type);
  if (!info) throw new Error(`${what}: onnxruntime type '${type}' has no .npy form here`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${info.descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // As numpy.save: spaces and a final '\n' so the data starts 64-byte aligned.
  let prefixLen = 10;
  if (prefixLen + header.length + 1 > 0xffff) prefixLen = 12;  // version 2.0
  const total = Math.ceil((prefixLen + header.length + 1) / 64) * 64;
  header = header.padEnd(total - prefixLen - 1, ' ') + '\n';
  const prefix = Buffer.alloc(prefixLen);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = prefixLen === 10 ? 1 : 2;
  prefix[7] = 0;
  if (prefixLen === 10) prefix.writeUInt16LE(header.length, 8); else prefix.writeUInt32LE(header.length, 8);
  // Whatever view onnxruntime returns (bool as Uint8Array, float16 as
  // Uint16Array or Float16Array), the bytes are the elements.
  let raw;
  if (ArrayBuffer.isView(data)) {
    raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } else if (Array.isArray(data) && type === 'bool') {
    raw = Buffer.from(data.map((v) => (v ? 1 : 0)));
  } else {
    throw new Error(`${what}: cannot encode ${type} data of this kind`);
  }
  const expected = dims.reduce((a, b) => a * b, 1) * info.Array.BYTES_PER_ELEMENT;
  if (raw.length !== expected) {
    throw new Error(`${what}: ${type} data has ${raw.length} bytes, shape [${dims.join(', ')}] needs ${expected}`);
  }
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), raw]);
}

// ---- command line -----------------------------------------------------------

function sanitize(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

function parseArgs(argv) {
  const args = { positional: [], inputs: [], convertOrt: null, level: 'extended' };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--input') {
      const spec = value();
      const eq = spec.lastIndexOf('=');
      if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--input wants NAME=FILE.npy, got '${spec}'`);
      args.inputs.push({ name: spec.slice(0, eq), file: spec.slice(eq + 1) });
    } else if (a === '--convert-ort') {
      args.convertOrt = value();
    } else if (a === '--level') {
      args.level = value();
      if (!['basic', 'extended', 'all'].includes(args.level)) {
        throw new UsageError(`--level must be basic, extended or all, not '${args.level}'`);
      }
    } else if (a === '-h' || a === '--help') {
      throw new UsageError('');
    } else if (a.startsWith('--')) {
      throw new UsageError(`unknown flag ${a}`);
    } else {
      args.positional.push(a);
    }
  }
  const wanted = args.convertOrt ? [1, 2] : [2];
  if (!wanted.includes(args.positional.length)) throw new UsageError('wrong number of arguments');
  return args;
}

async function convert(ort, model, args) {
  if (!args.convertOrt.endsWith('.ort')) throw new UsageError('--convert-ort output must end in .ort');
  fs.mkdirSync(path.dirname(path.resolve(args.convertOrt)), { recursive: true });
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: args.level,
    optimizedModelFilePath: args.convertOrt,
    logSeverityLevel: 3,
  });
  await session.release();
  if (!fs.existsSync(args.convertOrt)) throw new Error(`onnxruntime did not write ${args.convertOrt}`);
  console.log(`${args.convertOrt}: ${fs.statSync(args.convertOrt).size} bytes (level ${args.level})`);
}

async function run(ort, model, outDir, args) {
  const feeds = {};
  for (const { name, file } of args.inputs) {
    if (name in feeds) throw new UsageError(`input '${name}' given twice`);
    const t = readNpy(file);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], logSeverityLevel: 3 });
  try {
    const missing = session.inputNames.filter((n) => !(n in feeds));
    if (missing.length > 0) {
      throw new UsageError(`no --input for model input(s) ${missing.map((n) => `'${n}'`).join(', ')}`);
    }
    const unknown = Object.keys(feeds).filter((n) => !session.inputNames.includes(n));
    if (unknown.length > 0) {
      throw new UsageError(`the model has no input(s) ${unknown.map((n) => `'${n}'`).join(', ')}; ` +
                           `its inputs are ${session.inputNames.map((n) => `'${n}'`).join(', ')}`);
    }
    const results = await session.run(feeds);
    fs.mkdirSync(outDir, { recursive: true });
    const written = new Map();
    for (const name of session.outputNames) {
      const t = results[name];
      if (!t) throw new Error(`onnxruntime returned no output '${name}'`);
      const file = path.join(outDir, `${sanitize(name)}.npy`);
      if (written.has(file)) {
        throw new Error(`outputs '${written.get(file)}' and '${name}' both sanitize to ${file}`);
      }
      written.set(file, name);
      fs.writeFileSync(file, encodeNpy(t.type, t.dims, t.data, `output '${name}'`));
      console.log(`${name}\t${t.type}\t[${t.dims.join(', ')}]\t${file}`);
    }
  } finally {
    await session.release();
  }
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message) console.error(`ort_run: ${e.message}`);
    console.error('usage: node ort_run.js MODEL OUTDIR [--input NAME=FILE.npy]...\n' +
                  '       node ort_run.js MODEL [OUTDIR] --convert-ort OUT.ort [--level basic|extended|all]');
    return 2;
  }
  const [model, outDir] = args.positional;
  if (!fs.existsSync(model)) {
    console.error(`ort_run: ${model}: no such file`);
    return 1;
  }
  let ort;
  try {
    ort = require(ORT_DIR);
  } catch (e) {
    console.error(`ort_run: cannot load onnxruntime-node from ${ORT_DIR} (run scripts/setup.sh): ${e.message}`);
    return 1;
  }
  try {
    if (args.convertOrt) {
      await convert(ort, model, args);
    } else {
      await run(ort, model, outDir, args);
    }
    return 0;
  } catch (e) {
    console.error(`ort_run: ${model}: ${e && e.message ? e.message : e}`);
    return e instanceof UsageError ? 2 : 1;
  }
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code; });
}

module.exports = { readNpy, encodeNpy, sanitize };
