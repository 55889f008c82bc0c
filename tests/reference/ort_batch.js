#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// Reference outputs for the op cases, from onnxruntime-node on the CPU, in one
// node process. For every OUT/<name>/ holding meta.json (written by
// tests/ops/gen_cases.py) it reads model.onnx and inputs/<i>.npy (meta.inputs
// order), runs onnxruntime and writes expected/<i>.npy (meta.outputs order).
// Where meta.reference_model names a file of the case dir (a model of ops
// onnxruntime runs, equivalent to model.onnx's), it runs that file instead.
// When onnxruntime refuses the model or fails to run it, it writes
// expected/error.txt instead: the case is invalid, and the C++ test fails it.
//
// Usage: node tests/reference/ort_batch.js OUT [--filter REGEX] [--jobs N]
// Exit status 0 when every case has a reference, 1 when some failed (each is
// printed), 2 on a usage or I/O error.
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

// ---- .npy (format 1.0-3.0, little-endian, C order) ----

// numpy descr <-> onnxruntime tensor type and typed array.
const NPY_TYPES = [
  { descr: '<f4', ort: 'float32', array: Float32Array },
  { descr: '<f8', ort: 'float64', array: Float64Array },
  { descr: '<f2', ort: 'float16', array: Uint16Array },
  { descr: '<i8', ort: 'int64', array: BigInt64Array },
  { descr: '<i4', ort: 'int32', array: Int32Array },
  { descr: '<i2', ort: 'int16', array: Int16Array },
  { descr: '|i1', ort: 'int8', array: Int8Array },
  { descr: '<u8', ort: 'uint64', array: BigUint64Array },
  { descr: '<u4', ort: 'uint32', array: Uint32Array },
  { descr: '<u2', ort: 'uint16', array: Uint16Array },
  { descr: '|u1', ort: 'uint8', array: Uint8Array },
  { descr: '|b1', ort: 'bool', array: Uint8Array },
];
const DESCR_ALIASES = { '<i1': '|i1', '<u1': '|u1', '<b1': '|b1' };

function headerField(header, key, file) {
  const m = header.match(new RegExp(`['"]${key}['"]\\s*:\\s*('[^']*'|"[^"]*"|True|False|\\([^)]*\\))`));
  if (!m) throw new Error(`${file}: npy header has no '${key}'`);
  return m[1];
}

// Returns { type, dims, data } with `data` a typed array of `type`.
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
    headerLen = buf.readUInt32LE(8);
    start = 12;
  } else {
    throw new Error(`${file}: unsupported npy version ${major}`);
  }
  const header = buf.toString(major === 3 ? 'utf8' : 'latin1', start, start + headerLen);
  let descr = headerField(header, 'descr', file).slice(1, -1);
  descr = DESCR_ALIASES[descr] || descr;
  const info = NPY_TYPES.find((t) => t.descr === descr);
  if (!info) throw new Error(`${file}: unsupported npy dtype ${descr}`);
  if (headerField(header, 'fortran_order', file) !== 'False') {
    throw new Error(`${file}: Fortran order is not supported`);
  }
  const dims = headerField(header, 'shape', file).slice(1, -1).split(',')
    .map((s) => s.trim()).filter((s) => s.length > 0).map((s) => Number(s));
  if (dims.some((d) => !Number.isInteger(d) || d < 0)) throw new Error(`${file}: bad shape`);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  const bytes = count * info.array.BYTES_PER_ELEMENT;
  if (buf.length - offset !== bytes) {
    throw new Error(`${file}: ${buf.length - offset} data bytes, shape needs ${bytes}`);
  }
  // Copy into a fresh, aligned buffer for the typed array.
  const data = new info.array(count);
  Buffer.from(data.buffer).set(buf.subarray(offset, offset + bytes));
  return { type: info.ort, dims, data };
}

function writeNpy(file, type, dims, data) {
  const info = NPY_TYPES.find((t) => t.ort === type);
  if (!info) throw new Error(`${file}: onnxruntime output type ${type} has no npy form here`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${info.descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // Pad so that magic + version + length + header + '\n' is a multiple of 64.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  // Float16 (and bool) outputs may come back as other views: take the bytes.
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const expected = dims.reduce((a, b) => a * b, 1) * info.array.BYTES_PER_ELEMENT;
  if (raw.length !== expected) {
    throw new Error(`${file}: ${type} output has ${raw.length} bytes, shape needs ${expected}`);
  }
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), raw]));
}

// ---- cases ----

// The model onnxruntime runs: meta.reference_model (a plain file name in the
// case dir) when the case has one, else model.onnx.
function modelFile(meta) {
  if (meta.reference_model === undefined) return 'model.onnx';
  const name = meta.reference_model;
  if (typeof name !== 'string' || name === '' || name !== path.basename(name) || name.startsWith('.')) {
    throw new Error(`meta.json: reference_model must be a file name in the case dir, got ${JSON.stringify(name)}`);
  }
  return name;
}

async function runCase(dir) {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  // The case brought its own reference (gen_cases.py "expected").
  if (meta.expected_given === true) return null;
  const expectedDir = path.join(dir, 'expected');
  fs.rmSync(expectedDir, { recursive: true, force: true });
  fs.mkdirSync(expectedDir);
  let session;
  try {
    const feeds = {};
    meta.inputs.forEach((name, i) => {
      const t = readNpy(path.join(dir, 'inputs', `${i}.npy`));
      feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
    });
    session = await ort.InferenceSession.create(path.join(dir, modelFile(meta)), {
      executionProviders: ['cpu'],
      logSeverityLevel: 3,
    });
    const results = await session.run(feeds, meta.outputs);
    meta.outputs.forEach((name, i) => {
      const t = results[name];
      if (!t) throw new Error(`onnxruntime returned no output '${name}'`);
      writeNpy(path.join(expectedDir, `${i}.npy`), t.type, t.dims, t.data);
    });
    return null;
  } catch (e) {
    const message = (e && e.message) ? e.message : String(e);
    for (const f of fs.readdirSync(expectedDir)) fs.rmSync(path.join(expectedDir, f));
    fs.writeFileSync(path.join(expectedDir, 'error.txt'), message + '\n');
    return message;
  } finally {
    if (session) await session.release();
  }
}

async function main(argv) {
  const args = argv.slice(2);
  let out = null;
  let filter = null;
  let jobs = 4;
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--filter' && i + 1 < args.length) filter = new RegExp(args[++i]);
    else if (args[i] === '--jobs' && i + 1 < args.length) jobs = Math.max(1, Number(args[++i]));
    else if (out === null && !args[i].startsWith('--')) out = args[i];
    else throw new Error(`unexpected argument ${args[i]}`);
  }
  if (out === null) throw new Error('usage: node ort_batch.js OUT [--filter REGEX] [--jobs N]');
  const names = fs.readdirSync(out)
    .filter((n) => fs.existsSync(path.join(out, n, 'meta.json')))
    .filter((n) => !filter || filter.test(n))
    .sort();
  if (names.length === 0) throw new Error(`no cases (dirs with meta.json) under ${out}`);
  const failures = [];
  // A few sessions in flight: onnxruntime runs them on its own threads.
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      const error = await runCase(path.join(out, name));
      if (error !== null) failures.push(`${name}: ${error.split('\n')[0]}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, names.length) }, worker));
  failures.sort();
  for (const f of failures) console.error(`ort_batch: FAILED ${f}`);
  console.log(`ort_batch: ${names.length - failures.length} of ${names.length} references written`);
  return failures.length === 0 ? 0 : 1;
}

if (require.main === module) {
  main(process.argv).then((code) => { process.exitCode = code; }, (e) => {
    console.error(`ort_batch: ${e.message}`);
    process.exitCode = 2;
  });
}

module.exports = { readNpy, writeNpy };
