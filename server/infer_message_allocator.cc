// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "server/infer_message_allocator.h"

namespace vkserve {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;

class Holder final : public grpc::MessageHolder<ModelInferRequest, ModelInferResponse> {
 public:
  explicit Holder(std::shared_ptr<OutputBufferPool> pool) : pool_(std::move(pool)) {
    set_request(&request_);
    set_response(&response_);
  }
  void Release() override {
    RecycleOutputBuffers(&response_, pool_.get());
    delete this;
  }

 private:
  const std::shared_ptr<OutputBufferPool> pool_;
  ModelInferRequest request_;
  ModelInferResponse response_;
};

}  // namespace

grpc::MessageHolder<ModelInferRequest, ModelInferResponse>* InferMessageAllocator::AllocateMessages() {
  return new Holder(pool_);
}

void RecycleOutputBuffers(ModelInferResponse* response, OutputBufferPool* pool) {
  for (std::string& raw : *response->mutable_raw_output_contents()) pool->Give(std::move(raw));
}

}  // namespace vkserve
