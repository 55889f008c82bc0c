// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The vkserve Authors.
#include "gpu/instance.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "gpu/vk_status.h"
#include "spdlog/spdlog.h"

namespace vkserve::gpu {
namespace {

constexpr char kValidationLayer[] = "VK_LAYER_KHRONOS_validation";
constexpr size_t kKeptMessages = 16;

bool HasLayer(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  for (const auto& layer : layers) {
    if (std::strcmp(layer.layerName, name) == 0) return true;
  }
  return false;
}

bool HasInstanceExtension(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data()) != VK_SUCCESS)
    return false;
  for (const auto& e : extensions) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

InstanceOptions::Validation ResolveValidation(InstanceOptions::Validation v) {
  if (v != InstanceOptions::Validation::kFromEnvironment) return v;
  const char* env = std::getenv("VKSERVE_VALIDATION");
  if (env == nullptr) return InstanceOptions::Validation::kOff;
  std::string_view value(env);
  if (value == "fatal") return InstanceOptions::Validation::kFatal;
  if (value == "1" || value == "on" || value == "true") return InstanceOptions::Validation::kOn;
  return InstanceOptions::Validation::kOff;
}

// The layers and instance extensions an instance enables.
struct Enabled {
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  bool portability = false;
};

// FAILED_PRECONDITION when `validation` is wanted but its layer or
// VK_EXT_debug_utils is not installed.
absl::StatusOr<Enabled> ChooseLayersAndExtensions(bool validation) {
  Enabled e;
  if (validation) {
    if (!HasLayer(kValidationLayer)) {
      return absl::FailedPreconditionError(
          absl::StrCat("validation was requested but ", kValidationLayer,
                       " is not installed (Debian: apt-get install vulkan-validationlayers)"));
    }
    e.layers.push_back(kValidationLayer);
    if (!HasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
      return absl::FailedPreconditionError("validation needs VK_EXT_debug_utils, which is missing");
    }
    e.extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  // Lets the loader list portability drivers too; harmless elsewhere.
  e.portability = HasInstanceExtension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
  if (e.portability) e.extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
  return e;
}

// Warnings and errors of every type go to `callback` with `user_data`.
VkDebugUtilsMessengerCreateInfoEXT MessengerInfo(PFN_vkDebugUtilsMessengerCallbackEXT callback,
                                                 void* user_data) {
  VkDebugUtilsMessengerCreateInfoEXT info{};
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = callback;
  info.pUserData = user_data;
  return info;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(const InstanceOptions& options) {
  auto instance = std::unique_ptr<Instance>(new Instance());
  const InstanceOptions::Validation validation = ResolveValidation(options.validation);
  const bool want_validation = validation != InstanceOptions::Validation::kOff;
  instance->fatal_messages_ = validation == InstanceOptions::Validation::kFatal;

  ASSIGN_OR_RETURN(const Enabled enabled, ChooseLayersAndExtensions(want_validation));

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "vkserve";
  app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  app.pEngineName = "vkserve";
  app.apiVersion = VK_API_VERSION_1_3;

  const VkDebugUtilsMessengerCreateInfoEXT messenger_info =
      MessengerInfo(&Instance::OnDebugMessage, instance.get());

  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(enabled.layers.size());
  info.ppEnabledLayerNames = enabled.layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(enabled.extensions.size());
  info.ppEnabledExtensionNames = enabled.extensions.data();
  if (enabled.portability) info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  // Also catches messages from vkCreateInstance/vkDestroyInstance themselves.
  if (want_validation) info.pNext = &messenger_info;

  VkResult result = vkCreateInstance(&info, nullptr, &instance->instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return absl::FailedPreconditionError(
        "vkCreateInstance failed: no Vulkan driver found (Debian: apt-get install "
        "mesa-vulkan-drivers for the CPU driver lavapipe)");
  }
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateInstance");

  if (want_validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance->instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (create == nullptr) return absl::InternalError("vkCreateDebugUtilsMessengerEXT is missing");
    VK_RETURN_IF_ERROR(
        create(instance->instance_, &messenger_info, nullptr, &instance->messenger_));
  }
  ASSIGN_OR_RETURN(instance->devices_, QueryDevices(instance->instance_));
  return instance;
}

Instance::~Instance() {
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

std::vector<std::string> Instance::recent_validation_messages() const {
  MutexLock lock(&messages_mutex_);
  return messages_;
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::OnDebugMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT /*types*/,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user_data) {
  auto* self = static_cast<Instance*>(user_data);
  const char* text = data != nullptr && data->pMessage != nullptr ? data->pMessage : "(no text)";
  const bool error = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  spdlog::log(error ? spdlog::level::err : spdlog::level::warn, "vulkan validation: {}", text);
  self->message_count_.fetch_add(1);
  {
    MutexLock lock(&self->messages_mutex_);
    if (self->messages_.size() >= kKeptMessages) self->messages_.erase(self->messages_.begin());
    self->messages_.emplace_back(text);
  }
  if (self->fatal_messages_) {
    std::fprintf(stderr, "VKSERVE_VALIDATION=fatal: aborting on validation message\n");
    std::abort();
  }
  return VK_FALSE;
}

}  // namespace vkserve::gpu
