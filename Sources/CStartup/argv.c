// See include/cstartup.h.
#include "cstartup.h"

#include <stdlib.h>  // (and with it __GLIBC__, from features.h)

static int saved_argc;
static char **saved_argv;

#ifdef __GLIBC__
// glibc calls constructors with the arguments of main (static and dynamic executables alike); other C
// libraries may not, and there the accessors answer 0 and NULL.
__attribute__((constructor)) static void cstartup_capture(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}
#endif

int cstartup_argc(void) { return saved_argv ? saved_argc : 0; }
char **cstartup_argv(void) { return saved_argv; }
