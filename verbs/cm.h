#pragma once
// RAII and helpers for librdmacm (rdma_cm connection setup, `-R`).
#include <rdma/rdma_cma.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace rdmabench {

struct CmChannelDeleter {
  void operator()(rdma_event_channel* ch) const noexcept;
};
struct CmIdDeleter {
  void operator()(rdma_cm_id* id) const noexcept;  // destroys the id's QP first, if any
};
struct CmDevicesDeleter {
  void operator()(ibv_context** list) const noexcept;
};
using CmChannelPtr = std::unique_ptr<rdma_event_channel, CmChannelDeleter>;
using CmIdPtr = std::unique_ptr<rdma_cm_id, CmIdDeleter>;
using CmDevicesPtr = std::unique_ptr<ibv_context*, CmDevicesDeleter>;

CmChannelPtr create_cm_channel();
CmIdPtr create_cm_id(rdma_event_channel* ch, rdma_port_space ps = RDMA_PS_TCP);

// librdmacm's context for a device (the one its cm_ids will carry). Keeps the list alive.
struct CmDeviceContext {
  CmDevicesPtr list;
  ibv_context* ctx = nullptr;
};
CmDeviceContext cm_device_context(const std::string& name);

// Waits for the next event on `ch` (up to `timeout`), checks it is `expected`, acks it, and
// returns the event's id (for CONNECT_REQUEST: the new child id) and private data.
struct CmEvent {
  rdma_cm_event_type type = RDMA_CM_EVENT_ADDR_ERROR;
  int status = 0;
  rdma_cm_id* id = nullptr;
  std::vector<uint8_t> private_data;
};
// Waits for the next event (any type), acks it and returns a copy.
CmEvent cm_next(rdma_event_channel* ch, std::chrono::milliseconds timeout, const std::string& what);
CmEvent cm_expect(rdma_event_channel* ch, rdma_cm_event_type expected,
                  std::chrono::milliseconds timeout, const std::string& what);

}  // namespace rdmabench
