/* fiber.c - the hand-written context switch the threads of a block run on.
 *
 * pyemu_ctx_switch(&save, next) saves the callee-saved registers on the
 * current stack, stores the stack pointer in *save, and resumes the context
 * whose stack pointer is next.  A few nanoseconds, against ~300 ns for
 * swapcontext(), which also saves the signal mask with a system call.
 */
#include "core.h"

#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".globl pyemu_ctx_switch\n"
    ".type pyemu_ctx_switch,@function\n"
    ".p2align 4\n"
    "pyemu_ctx_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size pyemu_ctx_switch, .-pyemu_ctx_switch\n"
    /* first entry of a fiber: r12 = entry, r13 = arg */
    ".globl pyemu_fiber_trampoline\n"
    ".type pyemu_fiber_trampoline,@function\n"
    ".p2align 4\n"
    "pyemu_fiber_trampoline:\n"
    "    movq %r13, %rdi\n"
    "    callq *%r12\n"
    "    ud2\n"
    ".size pyemu_fiber_trampoline, .-pyemu_fiber_trampoline\n");

void pyemu_fiber_trampoline(void);

void *pyemu_fiber_prepare(void *stack_top, void (*entry)(void *), void *arg)
{
    /* After the switch pops six registers and returns into the trampoline,
     * rsp must be 16-byte aligned at its call instruction. */
    uintptr_t top = (uintptr_t)stack_top & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 72);
    sp[0] = 0;                          /* r15 */
    sp[1] = 0;                          /* r14 */
    sp[2] = (uint64_t)(uintptr_t)arg;   /* r13 */
    sp[3] = (uint64_t)(uintptr_t)entry; /* r12 */
    sp[4] = 0;                          /* rbx */
    sp[5] = 0;                          /* rbp */
    sp[6] = (uint64_t)(uintptr_t)pyemu_fiber_trampoline;
    sp[7] = 0;
    sp[8] = 0;
    return sp;
}

#elif defined(__aarch64__)
__asm__(
    ".text\n"
    ".globl pyemu_ctx_switch\n"
    ".type pyemu_ctx_switch,%function\n"
    ".p2align 4\n"
    "pyemu_ctx_switch:\n"
    "    sub sp, sp, #176\n"
    "    stp x19, x20, [sp, #0]\n"
    "    stp x21, x22, [sp, #16]\n"
    "    stp x23, x24, [sp, #32]\n"
    "    stp x25, x26, [sp, #48]\n"
    "    stp x27, x28, [sp, #64]\n"
    "    stp x29, x30, [sp, #80]\n"
    "    stp d8, d9, [sp, #96]\n"
    "    stp d10, d11, [sp, #112]\n"
    "    stp d12, d13, [sp, #128]\n"
    "    stp d14, d15, [sp, #144]\n"
    "    mov x2, sp\n"
    "    str x2, [x0]\n"
    "    mov sp, x1\n"
    "    ldp x19, x20, [sp, #0]\n"
    "    ldp x21, x22, [sp, #16]\n"
    "    ldp x23, x24, [sp, #32]\n"
    "    ldp x25, x26, [sp, #48]\n"
    "    ldp x27, x28, [sp, #64]\n"
    "    ldp x29, x30, [sp, #80]\n"
    "    ldp d8, d9, [sp, #96]\n"
    "    ldp d10, d11, [sp, #112]\n"
    "    ldp d12, d13, [sp, #128]\n"
    "    ldp d14, d15, [sp, #144]\n"
    "    add sp, sp, #176\n"
    "    ret\n"
    ".size pyemu_ctx_switch, .-pyemu_ctx_switch\n"
    /* first entry of a fiber: x19 = entry, x20 = arg */
    ".globl pyemu_fiber_trampoline\n"
    ".type pyemu_fiber_trampoline,%function\n"
    ".p2align 4\n"
    "pyemu_fiber_trampoline:\n"
    "    mov x0, x20\n"
    "    blr x19\n"
    "    brk #0\n"
    ".size pyemu_fiber_trampoline, .-pyemu_fiber_trampoline\n");

void pyemu_fiber_trampoline(void);

void *pyemu_fiber_prepare(void *stack_top, void (*entry)(void *), void *arg)
{
    uintptr_t top = (uintptr_t)stack_top & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 176);
    for (int i = 0; i < 22; i++)
        sp[i] = 0;
    sp[0] = (uint64_t)(uintptr_t)entry;                   /* x19 */
    sp[1] = (uint64_t)(uintptr_t)arg;                     /* x20 */
    sp[11] = (uint64_t)(uintptr_t)pyemu_fiber_trampoline; /* x30 */
    return sp;
}

#else
#error "pyemu's fibers need a context switch for this CPU (x86-64 and aarch64 exist)"
#endif
