#ifndef CSTARTUP_H
#define CSTARTUP_H

// The process's arguments as the C runtime gave them, for pbctl's entry (Sources/pbctl/main.swift).
// glibc calls every constructor with (argc, argv, envp), in static executables too; argv.c keeps
// them (NULL where the C library does not pass them: the entry then asks Swift's CommandLine). The
// first use of CommandLine costs about 30 µs of a 0.85 ms X11 paste here (its set-up and the page
// faults of the code behind it: docs/benchmarks.md), which the quick paste and copy do without.
int cstartup_argc(void);
char **cstartup_argv(void);

#endif
