/* A standalone check of csrc/fiber.c: three fibers and the main context take
 * turns; each keeps values in callee-saved integer and floating-point
 * registers across the switches, and the totals must come out exact. */
#include "../../../csrc/core.h"
#include <stdio.h>
#include <stdlib.h>

static void *main_sp, *fiber_sp[3];
static long total;

static void fiber(void *arg)
{
    long id = (long)arg;
    double acc = (double)id;          /* lives across switches */
    for (long round = 0;; round++) {
        total += id;
        acc += 0.5;
        pyemu_ctx_switch(&fiber_sp[id], main_sp);
        if (acc != (double)id + 0.5 * (round + 1)) {
            printf("fiber %ld lost its register state\n", id);
            exit(2);
        }
    }
}

int main(void)
{
    for (long i = 0; i < 3; i++) {
        char *stack = malloc(1 << 16);
        fiber_sp[i] = pyemu_fiber_prepare(stack + (1 << 16), fiber, (void *)i);
    }
    volatile long keep = 12345;
    double f = 0.25;
    for (int i = 0; i < 30000; i++) {
        pyemu_ctx_switch(&main_sp, fiber_sp[i % 3]);
        f += 1.0;
    }
    if (total != 30000 || keep != 12345 || f != 30000.25) {
        printf("FAIL total=%ld keep=%ld f=%g\n", total, (long)keep, f);
        return 1;
    }
    printf("switch ok\n");
    return 0;
}
