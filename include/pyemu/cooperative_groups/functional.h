/* cooperative_groups' operators for cg::reduce and the scans:
 * plus, less (the smaller value), greater (the larger), bit_and, bit_or, bit_xor. */
#ifndef PYEMU_CG_FUNCTIONAL_H
#define PYEMU_CG_FUNCTIONAL_H
#include "../cooperative_groups.h"

namespace cooperative_groups {
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };
}  // namespace cooperative_groups
#endif
