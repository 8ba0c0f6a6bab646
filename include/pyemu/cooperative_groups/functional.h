/* cooperative_groups' operators for cg::reduce and the scans:
 * plus, less (the smaller value), greater (the larger), bit_and, bit_or, bit_xor. */
#ifndef PYEMU_CG_FUNCTIONAL_H
#define PYEMU_CG_FUNCTIONAL_H
#include "../cooperative_groups.h"

namespace cooperative_groups {
template <class pyemu_T> struct plus { pyemu_T operator()(pyemu_T pyemu_a2, pyemu_T pyemu_b2) const { return pyemu_a2 + pyemu_b2; } };
template <class pyemu_T> struct less { pyemu_T operator()(pyemu_T pyemu_a2, pyemu_T pyemu_b2) const { return pyemu_b2 < pyemu_a2 ? pyemu_b2 : pyemu_a2; } };
template <class pyemu_T> struct greater { pyemu_T operator()(pyemu_T pyemu_a2, pyemu_T pyemu_b2) const { return pyemu_a2 < pyemu_b2 ? pyemu_b2 : pyemu_a2; } };
template <class pyemu_T> struct bit_and { pyemu_T operator()(pyemu_T pyemu_a2, pyemu_T pyemu_b2) const { return pyemu_a2 & pyemu_b2; } };
template <class pyemu_T> struct bit_or { pyemu_T operator()(pyemu_T pyemu_a2, pyemu_T pyemu_b2) const { return pyemu_a2 | pyemu_b2; } };
template <class pyemu_T> struct bit_xor { pyemu_T operator()(pyemu_T pyemu_a2, pyemu_T pyemu_b2) const { return pyemu_a2 ^ pyemu_b2; } };
}  // namespace cooperative_groups
#endif
