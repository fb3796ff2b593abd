#ifndef STACKCHECK_CORE_VERSION_H_
#define STACKCHECK_CORE_VERSION_H_

namespace stackcheck {

// The tool's version; replay files carry it and refuse other format versions.
inline constexpr char kVersion[] = "0.2.0";

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_VERSION_H_
