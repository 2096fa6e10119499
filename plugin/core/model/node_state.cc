// SPDX-License-Identifier: GPL-2.0-or-later
#include "model/node_state.h"

namespace sm {

std::string_view NodeBaseName(NodeBase base) {
  switch (base) {
    case NodeBase::kNone: return "";
    case NodeBase::kUnknown: return "UNKNOWN";
    case NodeBase::kDown: return "DOWN";
    case NodeBase::kIdle: return "IDLE";
    case NodeBase::kAllocated: return "ALLOCATED";
    case NodeBase::kError: return "ERROR";
    case NodeBase::kMixed: return "MIXED";
    case NodeBase::kFuture: return "FUTURE";
  }
  return "";
}

bool IsPowerManaged(const NodeState& s) {
  using namespace node_flag;
  return s.has(kPowerDown | kPowerDrain | kPoweredDown | kPoweringDown |
               kPoweringUp | kPowerUp);
}

bool IsUnavailable(const NodeState& s) {
  using namespace node_flag;
  if (IsPowerManaged(s)) return false;
  return s.base == NodeBase::kDown || s.has(kNotResponding) ||
         (s.base == NodeBase::kIdle && s.has(kDrain)) ||
         s.base == NodeBase::kUnknown || s.base == NodeBase::kError ||
         s.has(kFail) || s.has(kInvalid);
}

bool IsDraining(const NodeState& s) { return IsDraining(s.base, s.flags); }

bool IsFailed(const NodeState& s) {
  return (s.base == NodeBase::kDown || s.has(node_flag::kDrain)) &&
         !IsPowerManaged(s);
}

}  // namespace sm
