// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// RecurrentRewrite: RNN, GRU and LSTM (opsets 7-22, one direction: forward
// or reverse) lowered at load into a Scan over the sequence whose body is
// the cell — MatMuls against the transposed W and R, the gates, the state
// update — so planning unrolls it (runtime/ops/controlflow/scan.cc) and every step runs
// on the GPU. sequence_lens masks steps past each batch entry's length
// (state kept, Y zero), as the ONNX definition does. Default activations
// only; `clip`, bidirectional and LSTM's input_forget are UNIMPLEMENTED.
// Each op's file supplies its cell (BuildCell) and registers the rewrite.
// Stateless; thread-safe.
#ifndef VKSERVE_RUNTIME_LOWERING_RNN_RECURRENT_H_
#define VKSERVE_RUNTIME_LOWERING_RNN_RECURRENT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/op/rewrite.h"

namespace vkserve {

// Builds the cell's nodes inside a Scan body.
class CellBuilder {
 public:
  explicit CellBuilder(Graph* body) : body_(body) {}
  // Appends a node to the body; returns its (single) output's name.
  std::string Add(const std::string& op, std::vector<std::string> inputs, const std::string& out,
                  int64_t opset = 14);
  // Splits `value` into `parts` equal pieces along `axis`.
  std::vector<std::string> Split(const std::string& value, int parts, int64_t axis,
                                 const std::string& hint);
  Graph& body() { return *body_; }

 private:
  Graph* body_;
  int count_ = 0;
};

// What a cell reads: body values and outer values (captured by the body).
struct CellInputs {
  std::string x;          // [B, I], this step's input
  std::string h;          // [B, H], the previous hidden state
  std::string c;          // [B, H], LSTM's previous cell state ("" otherwise)
  std::string w_t;        // outer [I, G*H]
  std::string r_t;        // outer [H, G*H]
  std::string w_bias;     // outer [1, G*H], or "" without B
  std::string r_bias;     // outer [1, G*H], or "" without B
  std::string peepholes;  // outer [3, H] for LSTM's P, or ""
  int64_t hidden = 0;
};

struct CellOutputs {
  std::string h;  // new hidden state [B, H]
  std::string c;  // LSTM's new cell state, else ""
};

class RecurrentRewrite : public Rewrite {
 public:
  absl::Status Apply(RewriteContext& ctx) const override;

 protected:
  virtual int gates() const = 0;
  virtual bool has_cell_state() const { return false; }
  virtual const char* op_name() const = 0;
  // Validates op-specific attributes (activations, linear_before_reset, ...).
  virtual absl::Status CheckAttributes(const Node& node) const = 0;
  virtual CellOutputs BuildCell(CellBuilder& b, const CellInputs& in, const Node& node) const = 0;

 private:
  // The node's sizes and direction, read from X's declared shape.
  struct Dims {
    int64_t seq = 0, batch = 0, input = 0, hidden = 0;
    bool batch_major = false;  // layout 1: X is [batch, seq, input]
    bool reverse = false;
  };
  absl::StatusOr<Dims> CheckNode(RewriteContext& ctx) const;
  // W and R transposed, B split, P reshaped: the cell's outer values.
  CellInputs OuterInputs(RewriteContext& ctx, const Dims& d) const;
  // The Scan body: the states, then this step's x (and its step number when
  // sequence_lens masks, `lens` being the lengths as float [batch, 1]).
  Graph Body(const Node& node, const Dims& d, CellInputs in, const std::string& lens) const;
  // The Scan over X from the initial states, then its outputs reshaped into
  // the node's Y, Y_h and Y_c.
  void EmitScan(RewriteContext& ctx, const Dims& d, Graph body, const std::string& lens) const;
};

}  // namespace vkserve

#endif  // VKSERVE_RUNTIME_LOWERING_RNN_RECURRENT_H_
