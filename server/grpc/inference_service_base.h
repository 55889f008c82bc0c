// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
//
// InferenceServiceBase: inference.GRPCInferenceService as vkserve registers
// it, every RPC on gRPC's callback API except ModelInfer, which is served on
// the async API by InferQueues (infer_queues.h says why). The generated
// code offers the two pure forms only, so the mix is spelled out here, one
// template per RPC in the proto's order; a new RPC in the proto must be
// added to it or it stays unimplemented.
#ifndef VKSERVE_SERVER_GRPC_INFERENCE_SERVICE_BASE_H_
#define VKSERVE_SERVER_GRPC_INFERENCE_SERVICE_BASE_H_

#include "proto/grpc_service.grpc.pb.h"

namespace vkserve {

namespace service_base_internal {
using G = inference::GRPCInferenceService;
// clang-format off
using Base = G::WithCallbackMethod_ServerLive<
             G::WithCallbackMethod_ServerReady<
             G::WithCallbackMethod_ModelReady<
             G::WithCallbackMethod_ServerMetadata<
             G::WithCallbackMethod_ModelMetadata<
             G::WithAsyncMethod_ModelInfer<
             G::WithCallbackMethod_ModelStreamInfer<
             G::WithCallbackMethod_ModelConfig<
             G::WithCallbackMethod_ModelStatistics<
             G::WithCallbackMethod_RepositoryIndex<
             G::WithCallbackMethod_RepositoryModelLoad<
             G::WithCallbackMethod_RepositoryModelUnload<
             G::WithCallbackMethod_SystemSharedMemoryStatus<
             G::WithCallbackMethod_SystemSharedMemoryRegister<
             G::WithCallbackMethod_SystemSharedMemoryUnregister<
             G::WithCallbackMethod_TraceSetting<
             G::WithCallbackMethod_LogSettings<
             G::Service>>>>>>>>>>>>>>>>>;
// clang-format on
}  // namespace service_base_internal

using InferenceServiceBase = service_base_internal::Base;

}  // namespace vkserve

#endif  // VKSERVE_SERVER_GRPC_INFERENCE_SERVICE_BASE_H_
