// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// InferMessageAllocator: gRPC's allocator for ModelInfer's request and
// response messages, so that a response's output buffers go back to the
// OutputBufferPool once gRPC has sent it (MessageHolder::Release) instead of
// being freed, and the next large output lands in memory already mapped.
// Thread-safe; must outlive the server it is registered with (gRPC's rule).
#ifndef VKSERVE_SERVER_INFER_MESSAGE_ALLOCATOR_H_
#define VKSERVE_SERVER_INFER_MESSAGE_ALLOCATOR_H_

#include <grpcpp/support/message_allocator.h>

#include <memory>

#include "proto/grpc_service.pb.h"
#include "server/output_buffer_pool.h"

namespace vkserve {

class InferMessageAllocator final
    : public grpc::MessageAllocator<inference::ModelInferRequest, inference::ModelInferResponse> {
 public:
  // Each message holder shares `pool`, so it outlives the last response
  // however late gRPC releases it.
  explicit InferMessageAllocator(std::shared_ptr<OutputBufferPool> pool) : pool_(std::move(pool)) {}

  grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse>* AllocateMessages()
      override;

 private:
  const std::shared_ptr<OutputBufferPool> pool_;
};

// Gives every raw_output_contents buffer of `response` to `pool`.
void RecycleOutputBuffers(inference::ModelInferResponse* response, OutputBufferPool* pool);

}  // namespace vkserve

#endif  // VKSERVE_SERVER_INFER_MESSAGE_ALLOCATOR_H_
