// The one place that decides which CPU instructions s2s runs (as CTranslate2's cpu_isa): every
// kernel that has a vector variant asks cpu_isa(), and oneDNN is held to the same level. It is
// the best level the CPU has, or the one the environment variable S2S_CPU_ISA names (generic,
// avx2, avx512; at most what the CPU has), so that the other kernels can be run and compared on
// one machine. Decided once per process, before oneDNN makes its first kernel (backend::engine).
#pragma once

#include <string>
#include <vector>

namespace s2s::backend {

enum class CpuIsa { generic, avx2, avx512 };

// The level in use. Throws UsageError naming S2S_CPU_ISA's value when it is unknown or above
// what this CPU has.
CpuIsa cpu_isa();
// What this CPU has, whatever S2S_CPU_ISA says.
CpuIsa detected_cpu_isa();
// Every level this CPU can run, lowest first (tests run each).
std::vector<CpuIsa> runnable_isas();
const char* isa_name(CpuIsa isa);  // "generic", "avx2", "avx512"

// Features beyond the level, as oneDNN runs them under cpu_isa(): bfloat16 products
// (AVX512-BF16) and int8 dot products (AVX512-VNNI or AVX-VNNI).
bool runs_bf16();
bool runs_int8_dot();

// For `s2s info`: the level in use, what the CPU has, and whether S2S_CPU_ISA chose it.
std::string describe_cpu_isa();

}  // namespace s2s::backend
