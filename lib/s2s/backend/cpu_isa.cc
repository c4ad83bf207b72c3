#include "s2s/backend/cpu_isa.h"

#include <cstdlib>
#include <dnnl.hpp>

#include "s2s/core/error.h"

namespace s2s::backend {

namespace {

constexpr const char* kVariable = "S2S_CPU_ISA";

// What the kernels compiled with target("avx2") / target("avx512f") need.
CpuIsa detect() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return CpuIsa::avx512;
  if (__builtin_cpu_supports("avx2")) return CpuIsa::avx2;
  return CpuIsa::generic;
}

CpuIsa parse(const std::string& name, CpuIsa detected) {
  for (CpuIsa isa : {CpuIsa::generic, CpuIsa::avx2, CpuIsa::avx512}) {
    if (name != isa_name(isa)) continue;
    if (isa > detected)
      throw UsageError(std::string(kVariable) + "=" + name + ": this CPU has at most " +
                       isa_name(detected));
    return isa;
  }
  throw UsageError(std::string(kVariable) + "=" + name + ": expected generic, avx2 or avx512");
}

// oneDNN's ceiling for a level below the CPU's own (its levels are feature masks: avx2_vnni
// admits AVX2 and AVX-VNNI but no AVX-512).
dnnl::cpu_isa dnnl_ceiling(CpuIsa isa) {
  return isa == CpuIsa::generic ? dnnl::cpu_isa::sse41 : dnnl::cpu_isa::avx2_vnni;
}

struct Choice {
  CpuIsa isa;
  bool from_environment;
};

Choice choose() {
  const CpuIsa detected = detected_cpu_isa();
  const char* env = std::getenv(kVariable);
  if (env == nullptr || *env == '\0') return {detected, false};
  const CpuIsa isa = parse(env, detected);
  // Before any oneDNN kernel exists (engine() asks cpu_isa() first): later it is refused.
  if (isa < detected && dnnl::set_max_cpu_isa(dnnl_ceiling(isa)) != dnnl::status::success)
    throw InternalError(std::string(kVariable) + ": oneDNN refused the ceiling " + env);
  return {isa, true};
}

const Choice& choice() {
  static const Choice c = choose();  // a throw leaves it undecided: the next call throws again
  return c;
}

// Whether oneDNN runs at `level` or above (its ISA values are feature masks).
bool dnnl_has(dnnl_cpu_isa_t level) {
  choice();  // the ceiling first
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  return (isa & level) == unsigned(level);
}

}  // namespace

CpuIsa detected_cpu_isa() {
  static const CpuIsa detected = detect();
  return detected;
}

CpuIsa cpu_isa() { return choice().isa; }

std::vector<CpuIsa> runnable_isas() {
  std::vector<CpuIsa> all;
  for (CpuIsa isa : {CpuIsa::generic, CpuIsa::avx2, CpuIsa::avx512})
    if (isa <= detected_cpu_isa()) all.push_back(isa);
  return all;
}

const char* isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::avx512:
      return "avx512";
    case CpuIsa::avx2:
      return "avx2";
    case CpuIsa::generic:
      break;
  }
  return "generic";
}

bool runs_bf16() { return dnnl_has(dnnl_cpu_isa_avx512_core_bf16); }

bool runs_int8_dot() {
  return dnnl_has(dnnl_cpu_isa_avx512_core_vnni) || dnnl_has(dnnl_cpu_isa_avx2_vnni);
}

std::string describe_cpu_isa() {
  const Choice& c = choice();
  std::string out = std::string(isa_name(c.isa)) + " (this CPU: " + isa_name(detected_cpu_isa());
  if (c.from_environment) out += std::string("; set by ") + kVariable;
  return out + ")";
}

}  // namespace s2s::backend
