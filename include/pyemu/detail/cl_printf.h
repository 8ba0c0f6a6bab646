/* OpenCL C printf (OpenCL 1.2, 6.12.13), through the core's printf.
 *
 * printf is a macro for pyemu_cl_printf, a variadic template: it records
 * each argument with its real type (integer, floating, pointer, or the
 * components of a vector), then one non-template function reads the format
 * and writes the text, which goes to the core in one piece (pyemu_printf,
 * abi.h), so lines of different work-items never interleave.
 *
 * Conversions: %d %i %o %u %x %X %c %s %p %f %F %e %E %g %G %a %A and %%,
 * with flags, width, precision (also `*`) and the length modifiers hh, h,
 * l (and hl for vectors).  An integer is printed at the width its modifier
 * names (%hhd of 300 is 44, %d of a long its low 32 bits), as C's printf
 * does with arguments of the type the modifier names; a vector specifier
 * %vN (N = 2, 3, 4, 8, 16), as in %v4hlf or %v2hhx, prints the N
 * components of a vector argument each with the conversion, separated by
 * commas; without a modifier the vector's own element width is used, so
 * %v4f and %v4d work too.  Returns 0, or -1 if the format and the arguments
 * do not match (missing arguments, a vector for a scalar conversion, ...);
 * what could be printed still is.
 */
#ifndef PYEMU_DETAIL_INSIDE
#error "include <pyemu/opencl_device.h>, not this file"
#endif

/* One argument, as printf sees it. */
enum { PYEMU_PA_NONE, PYEMU_PA_SIGNED, PYEMU_PA_UNSIGNED, PYEMU_PA_FLOAT, PYEMU_PA_POINTER };
struct pyemu_cl_parg {
    int pyemu_kind;   /* PYEMU_PA_*, of the scalar or of each component */
    int pyemu_n;      /* 0 for a scalar, else the number of components */
    int pyemu_size;   /* bytes of the (element) type */
    union {
        long long pyemu_i;
        unsigned long long pyemu_u;
        double pyemu_f;
        const void *pyemu_p;
    } pyemu_v[16];
};

template <class pyemu_E> inline void pyemu_cl_put(pyemu_cl_parg &pyemu_a, int pyemu_k, const pyemu_E &pyemu_x)
{
    pyemu_a.pyemu_size = (int)sizeof(pyemu_E);
    if constexpr (pyemu_is_fp<pyemu_E>::pyemu_v || __is_same(pyemu_E, half)) {
        pyemu_a.pyemu_kind = PYEMU_PA_FLOAT;
        pyemu_a.pyemu_v[pyemu_k].pyemu_f = (double)pyemu_x;
    } else if constexpr (pyemu_is_int<pyemu_E>::pyemu_v || __is_same(pyemu_E, bool) || __is_enum(pyemu_E)) {
        if constexpr (pyemu_is_int<pyemu_E>::pyemu_v && !pyemu_is_signed<pyemu_E>::pyemu_v) {
            pyemu_a.pyemu_kind = PYEMU_PA_UNSIGNED;
            pyemu_a.pyemu_v[pyemu_k].pyemu_u = (unsigned long long)pyemu_x;
        } else {
            pyemu_a.pyemu_kind = PYEMU_PA_SIGNED;
            pyemu_a.pyemu_v[pyemu_k].pyemu_i = (long long)pyemu_x;
        }
    } else if constexpr (__is_same(pyemu_E, decltype(nullptr))) {
        pyemu_a.pyemu_kind = PYEMU_PA_POINTER;
        pyemu_a.pyemu_v[pyemu_k].pyemu_p = nullptr;
    } else {
        pyemu_a.pyemu_kind = PYEMU_PA_NONE;   /* a struct: matches no conversion */
    }
}
template <class pyemu_E> inline void pyemu_cl_put(pyemu_cl_parg &pyemu_a, int pyemu_k, pyemu_E *const &pyemu_x)
{
    pyemu_a.pyemu_size = (int)sizeof(void *);
    pyemu_a.pyemu_kind = PYEMU_PA_POINTER;
    pyemu_a.pyemu_v[pyemu_k].pyemu_p = (const void *)pyemu_x;
}

template <class pyemu_X> inline pyemu_cl_parg pyemu_cl_arg(const pyemu_X &pyemu_x)
{
    pyemu_cl_parg pyemu_a;
    pyemu_a.pyemu_n = pyemu_vt<pyemu_X>::pyemu_n;
    if constexpr (pyemu_vt<pyemu_X>::pyemu_n == 0) {
        pyemu_cl_put(pyemu_a, 0, pyemu_x);
    } else {
        typename pyemu_vt<pyemu_X>::pyemu_type pyemu_v = pyemu_x;
        for (int pyemu_i = 0; pyemu_i < pyemu_a.pyemu_n; ++pyemu_i)
            pyemu_cl_put(pyemu_a, pyemu_i, pyemu_v.pyemu_s[pyemu_i]);
    }
    return pyemu_a;
}

/* The text being formed: on the stack, on the heap once it outgrows that. */
struct pyemu_cl_text {
    char *pyemu_buf;
    size_t pyemu_len, pyemu_cap;
    bool pyemu_failed;
    char pyemu_small[512];
};
static inline void pyemu_cl_putf(pyemu_cl_text *pyemu_t, const char *pyemu_f, ...)
{
    va_list pyemu_ap;
    for (;;) {
        va_start(pyemu_ap, pyemu_f);
        int pyemu_n = vsnprintf(pyemu_t->pyemu_buf + pyemu_t->pyemu_len, pyemu_t->pyemu_cap - pyemu_t->pyemu_len,
                                pyemu_f, pyemu_ap);
        va_end(pyemu_ap);
        if (pyemu_n < 0) {
            pyemu_t->pyemu_failed = true;
            pyemu_t->pyemu_buf[pyemu_t->pyemu_len] = 0;
            return;
        }
        if ((size_t)pyemu_n < pyemu_t->pyemu_cap - pyemu_t->pyemu_len) {
            pyemu_t->pyemu_len += (size_t)pyemu_n;
            return;
        }
        size_t pyemu_cap = 2 * (pyemu_t->pyemu_len + (size_t)pyemu_n + 1);
        char *pyemu_b = (char *)malloc(pyemu_cap);
        if (!pyemu_b) {
            pyemu_t->pyemu_failed = true;
            pyemu_t->pyemu_buf[pyemu_t->pyemu_len] = 0;
            return;
        }
        __builtin_memcpy(pyemu_b, pyemu_t->pyemu_buf, pyemu_t->pyemu_len);
        if (pyemu_t->pyemu_buf != pyemu_t->pyemu_small)
            free(pyemu_t->pyemu_buf);
        pyemu_t->pyemu_buf = pyemu_b;
        pyemu_t->pyemu_cap = pyemu_cap;
    }
}

/* One component printed by one conversion: `spec` is "%" flags width
 * precision (no length), bits the integer width the modifier names (0:
 * the argument's own). */
static inline bool pyemu_cl_conv(pyemu_cl_text *pyemu_t, const char *pyemu_spec, char pyemu_conv, int pyemu_bits,
                                 const pyemu_cl_parg &pyemu_a, int pyemu_k)
{
    char pyemu_f[80];
    int pyemu_kind = pyemu_a.pyemu_kind;
    if (pyemu_kind == PYEMU_PA_NONE)
        return false;
    if (pyemu_bits == 0)
        pyemu_bits = pyemu_a.pyemu_n ? 8 * pyemu_a.pyemu_size : 32;
    switch (pyemu_conv) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': {
        unsigned long long pyemu_u = pyemu_kind == PYEMU_PA_FLOAT ? (unsigned long long)(long long)pyemu_a.pyemu_v[pyemu_k].pyemu_f
                                     : pyemu_a.pyemu_v[pyemu_k].pyemu_u;
        if (pyemu_bits < 64)
            pyemu_u &= (1ull << pyemu_bits) - 1;
        snprintf(pyemu_f, sizeof pyemu_f, "%sll%c", pyemu_spec, pyemu_conv);
        if (pyemu_conv == 'd' || pyemu_conv == 'i') {
            long long pyemu_s = (long long)pyemu_u;
            if (pyemu_bits < 64 && (pyemu_u >> (pyemu_bits - 1)) & 1u)
                pyemu_s = (long long)(pyemu_u | ~((1ull << pyemu_bits) - 1));   /* sign-extend */
            pyemu_cl_putf(pyemu_t, pyemu_f, pyemu_s);
        } else {
            pyemu_cl_putf(pyemu_t, pyemu_f, pyemu_u);
        }
        return pyemu_kind != PYEMU_PA_POINTER;
    }
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        double pyemu_d = pyemu_kind == PYEMU_PA_FLOAT ? pyemu_a.pyemu_v[pyemu_k].pyemu_f
                         : pyemu_kind == PYEMU_PA_SIGNED ? (double)pyemu_a.pyemu_v[pyemu_k].pyemu_i
                                                         : (double)pyemu_a.pyemu_v[pyemu_k].pyemu_u;
        snprintf(pyemu_f, sizeof pyemu_f, "%s%c", pyemu_spec, pyemu_conv);
        pyemu_cl_putf(pyemu_t, pyemu_f, pyemu_d);
        return pyemu_kind == PYEMU_PA_FLOAT;
    }
    case 'c':
        snprintf(pyemu_f, sizeof pyemu_f, "%sc", pyemu_spec);
        pyemu_cl_putf(pyemu_t, pyemu_f, (int)(unsigned char)pyemu_a.pyemu_v[pyemu_k].pyemu_u);
        return pyemu_kind == PYEMU_PA_SIGNED || pyemu_kind == PYEMU_PA_UNSIGNED;
    case 's':
        if (pyemu_kind != PYEMU_PA_POINTER)
            return false;
        snprintf(pyemu_f, sizeof pyemu_f, "%ss", pyemu_spec);
        pyemu_cl_putf(pyemu_t, pyemu_f, pyemu_a.pyemu_v[pyemu_k].pyemu_p ? (const char *)pyemu_a.pyemu_v[pyemu_k].pyemu_p
                                                                        : "(null)");
        return true;
    case 'p':
        snprintf(pyemu_f, sizeof pyemu_f, "%sp", pyemu_spec);
        pyemu_cl_putf(pyemu_t, pyemu_f, pyemu_kind == PYEMU_PA_POINTER ? pyemu_a.pyemu_v[pyemu_k].pyemu_p
                                                                       : (const void *)pyemu_a.pyemu_v[pyemu_k].pyemu_u);
        return pyemu_kind == PYEMU_PA_POINTER;
    }
    return false;
}

static inline bool pyemu_cl_isdigit(char pyemu_c) { return pyemu_c >= '0' && pyemu_c <= '9'; }

/* Reads `fmt`, takes the arguments in order; 0 or -1 as OpenCL's printf. */
static inline int pyemu_cl_vprintf(const char *pyemu_fmt, const pyemu_cl_parg *pyemu_args, int pyemu_nargs)
{
    pyemu_cl_text pyemu_t;
    pyemu_t.pyemu_buf = pyemu_t.pyemu_small;
    pyemu_t.pyemu_len = 0;
    pyemu_t.pyemu_cap = sizeof pyemu_t.pyemu_small;
    pyemu_t.pyemu_failed = false;
    pyemu_t.pyemu_small[0] = 0;
    bool pyemu_ok = true;
    int pyemu_next = 0;
    const char *pyemu_p = pyemu_fmt ? pyemu_fmt : "";
    while (*pyemu_p) {
        const char *pyemu_q = pyemu_p;
        while (*pyemu_q && *pyemu_q != '%')
            ++pyemu_q;
        if (pyemu_q != pyemu_p)
            pyemu_cl_putf(&pyemu_t, "%.*s", (int)(pyemu_q - pyemu_p), pyemu_p);
        if (!*pyemu_q)
            break;
        pyemu_p = pyemu_q + 1;   /* after the % */
        if (*pyemu_p == '%') {
            pyemu_cl_putf(&pyemu_t, "%%");
            ++pyemu_p;
            continue;
        }
        /* %[flags][width][.precision][vN][length]conversion */
        char pyemu_spec[64];
        int pyemu_sl = 0;
        pyemu_spec[pyemu_sl++] = '%';
        while (*pyemu_p && __builtin_strchr("-+ #0", *pyemu_p) && pyemu_sl < 8)
            pyemu_spec[pyemu_sl++] = *pyemu_p++;
        for (int pyemu_part = 0; pyemu_part < 2; ++pyemu_part) {   /* width, then precision */
            if (pyemu_part == 1) {
                if (*pyemu_p != '.')
                    break;
                pyemu_spec[pyemu_sl++] = *pyemu_p++;
            }
            if (*pyemu_p == '*') {
                ++pyemu_p;
                long long pyemu_w = 0;
                if (pyemu_next < pyemu_nargs && pyemu_args[pyemu_next].pyemu_n == 0 &&
                    (pyemu_args[pyemu_next].pyemu_kind == PYEMU_PA_SIGNED ||
                     pyemu_args[pyemu_next].pyemu_kind == PYEMU_PA_UNSIGNED))
                    pyemu_w = (int)pyemu_args[pyemu_next].pyemu_v[0].pyemu_i;
                else
                    pyemu_ok = false;
                ++pyemu_next;
                pyemu_sl += snprintf(pyemu_spec + pyemu_sl, 24, "%lld", pyemu_w);
            } else {
                for (int pyemu_d = 0; pyemu_cl_isdigit(*pyemu_p); ++pyemu_d, ++pyemu_p)
                    if (pyemu_d < 8)
                        pyemu_spec[pyemu_sl++] = *pyemu_p;
            }
        }
        pyemu_spec[pyemu_sl] = 0;
        int pyemu_vn = 0;
        if (*pyemu_p == 'v') {
            ++pyemu_p;
            while (pyemu_cl_isdigit(*pyemu_p))
                pyemu_vn = 10 * pyemu_vn + (*pyemu_p++ - '0');
            if (pyemu_vn != 2 && pyemu_vn != 3 && pyemu_vn != 4 && pyemu_vn != 8 && pyemu_vn != 16)
                pyemu_ok = false;
            /* a precision after the vector specifier (%v4.2f) is taken too,
             * though the grammar puts it before (%.2v4f) */
            if (*pyemu_p == '.' && !__builtin_strchr(pyemu_spec, '.')) {
                pyemu_spec[pyemu_sl++] = *pyemu_p++;
                for (int pyemu_d = 0; pyemu_cl_isdigit(*pyemu_p); ++pyemu_d, ++pyemu_p)
                    if (pyemu_d < 8)
                        pyemu_spec[pyemu_sl++] = *pyemu_p;
                pyemu_spec[pyemu_sl] = 0;
            }
        }
        int pyemu_bits = 0;
        if (pyemu_p[0] == 'h' && pyemu_p[1] == 'h') {
            pyemu_bits = 8;
            pyemu_p += 2;
        } else if (pyemu_p[0] == 'h' && pyemu_p[1] == 'l') {
            pyemu_bits = 32;
            pyemu_p += 2;
        } else if (pyemu_p[0] == 'h') {
            pyemu_bits = 16;
            pyemu_p += 1;
        } else if (pyemu_p[0] == 'l' && pyemu_p[1] == 'l') {
            pyemu_bits = 64;
            pyemu_p += 2;
        } else if (pyemu_p[0] == 'l' || pyemu_p[0] == 'z' || pyemu_p[0] == 'j' || pyemu_p[0] == 't') {
            pyemu_bits = 64;
            pyemu_p += 1;
        }
        char pyemu_conv = *pyemu_p;
        if (!pyemu_conv || !__builtin_strchr("diouxXcspfFeEgGaA", pyemu_conv)) {
            /* not a conversion: print it as written */
            pyemu_cl_putf(&pyemu_t, "%.*s", (int)(pyemu_p - pyemu_q), pyemu_q);
            pyemu_ok = false;
            continue;
        }
        ++pyemu_p;
        if (pyemu_next >= pyemu_nargs) {
            pyemu_ok = false;
            continue;
        }
        const pyemu_cl_parg &pyemu_a = pyemu_args[pyemu_next++];
        if (pyemu_vn != pyemu_a.pyemu_n && !(pyemu_vn == 0 && pyemu_a.pyemu_n == 0))
            pyemu_ok = false;
        if (pyemu_vn == 0 && pyemu_bits == 0 && pyemu_a.pyemu_n == 0 &&
            (pyemu_conv == 'd' || pyemu_conv == 'i' || pyemu_conv == 'o' || pyemu_conv == 'u' ||
             pyemu_conv == 'x' || pyemu_conv == 'X'))
            pyemu_bits = 32;   /* plain %d: an int */
        int pyemu_count = pyemu_a.pyemu_n ? pyemu_a.pyemu_n : 1;
        for (int pyemu_k = 0; pyemu_k < pyemu_count; ++pyemu_k) {
            if (pyemu_k)
                pyemu_cl_putf(&pyemu_t, ",");
            if (!pyemu_cl_conv(&pyemu_t, pyemu_spec, pyemu_conv, pyemu_bits, pyemu_a, pyemu_k))
                pyemu_ok = false;
        }
    }
    pyemu_printf("%s", pyemu_t.pyemu_buf);
    if (pyemu_t.pyemu_buf != pyemu_t.pyemu_small)
        free(pyemu_t.pyemu_buf);
    return pyemu_ok && !pyemu_t.pyemu_failed ? 0 : -1;
}

template <class... pyemu_A> inline int pyemu_cl_printf(const char *pyemu_fmt, pyemu_A... pyemu_a)
{
    const pyemu_cl_parg pyemu_args[sizeof...(pyemu_A) + 1] = {pyemu_cl_arg(pyemu_a)..., pyemu_cl_parg()};
    return pyemu_cl_vprintf(pyemu_fmt, pyemu_args, (int)sizeof...(pyemu_A));
}
#undef printf
#define printf pyemu_cl_printf
