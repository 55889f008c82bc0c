// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// BatchKey: what requests must share to run as one batch (runtime/batch_run.h
// assembles and splits it): every input's name, datatype and non-batch
// dimensions, and which outputs stay on the GPU. Requests with equal keys
// may share a batch; the dynamic batcher decides which do.
//
// A stateless function; thread-safe.
#ifndef VKSERVE_SERVER_SCHEDULING_BATCH_KEY_H_
#define VKSERVE_SERVER_SCHEDULING_BATCH_KEY_H_

#include <optional>
#include <string>

#include "runtime/model.h"
#include "server/scheduling/scheduler.h"

namespace vkserve {

// nullopt when the request must run alone: no batch dimension, a trace
// (which describes one run), or bindings `model` refuses (CheckInput, an
// unknown output) or a released tensor (its run alone reports the error).
std::optional<std::string> BatchKey(const Model& model, const SchedulerRequest& request);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_SCHEDULING_BATCH_KEY_H_
