// OpenSSL's x86 CPU probe, run when pbctl first uses OpenSSL instead of at every start.
//
// libcrypto's x86_64cpuid.o puts a call to OPENSSL_cpuid_setup in the .init section, so a static link
// runs it before main in every pbctl process: about ten CPUID instructions, each a trap to the
// hypervisor on a virtual machine (about 36 µs of a 1 ms `pbctl paste` here, docs/benchmarks.md). The
// release link (Makefile RELEASE_FLAGS) passes --wrap=OPENSSL_cpuid_setup, which sends that call, and
// OPENSSL_init_crypto's, to the empty __wrap_OPENSSL_cpuid_setup below, and -u OPENSSL_cpuid_setup,
// which keeps the real one in the link as __real_OPENSSL_cpuid_setup. Every kc_ function that reaches
// OpenSSL calls kc_start first, which runs the real probe once. A link without the flags (the debug
// build, against the shared libcrypto, which runs its probe when it is loaded) leaves the weak
// reference null and kc_start does nothing. scripts/release-smoke.sh checks the release binary holds
// both functions.
#include "copenssl.h"

#include <pthread.h>

void __real_OPENSSL_cpuid_setup(void) __attribute__((weak));

void __wrap_OPENSSL_cpuid_setup(void) {}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe(void) { __real_OPENSSL_cpuid_setup(); }

void kc_start(void) {
    if (__real_OPENSSL_cpuid_setup) pthread_once(&probe_once, probe);
}
