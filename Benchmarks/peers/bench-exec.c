/* Whole-process timing for `make bench` (scripts/bench.sh builds it with the system's cc): runs several commands
 * interleaved, round after round, each round running every command once on every input file, one process
 * per file, and prints per command the median and minimum of the rounds' wall-clock totals and the largest
 * peak resident set (wait4's ru_maxrss) any of its processes had. An argument "{}" is replaced by the input
 * file's path; "<{}" gives the process the file as its standard input (pulldown-cmark reads only that), so no
 * shell is ever started; leading NAME=VALUE arguments are set in the child's environment only (as env(1) would,
 * without its process). Standard output goes to /dev/null.
 *
 * bench-exec -r ROUNDS -w WARMUPS -l FILE-LIST --command NAME ARG... [--command NAME ARG...]... (ARGs never "--command")
 * Output, one line a command: NAME<TAB>median seconds<TAB>min seconds<TAB>peak KB */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct command { const char *name; char **argv; int argc; double *totals; long peak; };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static long run(struct command *c, const char *file, int devnull) {
    char *argv[c->argc + 1];
    int stdin_fd = -1;
    int n = 0;
    for (int i = 0; i < c->argc; i++) {
        if (strcmp(c->argv[i], "<{}") == 0) { stdin_fd = open(file, O_RDONLY); if (stdin_fd < 0) { perror(file); exit(1); } continue; }
        argv[n++] = strcmp(c->argv[i], "{}") == 0 ? (char *)file : c->argv[i];
    }
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); exit(1); }
    if (pid == 0) {
        if (stdin_fd >= 0) dup2(stdin_fd, 0);
        char **program = argv;
        while (*program && strchr(*program, '=') && **program != '/' && **program != '.') putenv(*program++);
        argv[0] = *program ? *program : argv[0];
        if (program != argv) memmove(argv, program, (size_t)(n - (program - argv) + 1) * sizeof *argv);
        dup2(devnull, 1);
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    if (stdin_fd >= 0) close(stdin_fd);
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); exit(1); }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench-exec: %s failed on %s (status %d)\n", c->name, file, status);
        exit(1);
    }
    return usage.ru_maxrss;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int rounds = 10, warmups = 2, ncommands = 0, nfiles = 0;
    const char *list = NULL;
    struct command commands[32];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) warmups = atoi(argv[++i]);
        else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc) list = argv[++i];
        else if (strcmp(argv[i], "--command") == 0 && i + 1 < argc && ncommands < 32) {
            struct command *c = &commands[ncommands++];
            c->name = argv[++i];
            c->argv = &argv[i + 1];
            c->argc = 0;
            while (i + 1 < argc && strcmp(argv[i + 1], "--command") != 0) { i++; c->argc++; }
            c->peak = 0;
        } else { fprintf(stderr, "usage: bench-exec -r ROUNDS -w WARMUPS -l FILE-LIST --command NAME ARG...\n"); return 2; }
    }
    if (!list || ncommands == 0 || rounds < 1) { fprintf(stderr, "bench-exec: need -l and --command\n"); return 2; }
    FILE *f = fopen(list, "r");
    if (!f) { perror(list); return 1; }
    char **files = NULL, line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line) continue;
        files = realloc(files, (nfiles + 1) * sizeof *files);
        files[nfiles++] = strdup(line);
    }
    fclose(f);
    int devnull = open("/dev/null", O_WRONLY);
    for (int c = 0; c < ncommands; c++) commands[c].totals = calloc(rounds, sizeof(double));
    for (int r = -warmups; r < rounds; r++) {
        for (int c = 0; c < ncommands; c++) {
            struct command *cmd = &commands[(c + (r < 0 ? 0 : r)) % ncommands]; /* rotate who goes first */
            double total = 0;
            for (int i = 0; i < nfiles; i++) {
                double start = now();
                long peak = run(cmd, files[i], devnull);
                total += now() - start;
                if (r >= 0 && peak > cmd->peak) cmd->peak = peak;
            }
            if (r >= 0) cmd->totals[r] = total;
        }
    }
    for (int c = 0; c < ncommands; c++) {
        qsort(commands[c].totals, rounds, sizeof(double), compare);
        double median = rounds % 2 ? commands[c].totals[rounds / 2]
                                   : (commands[c].totals[rounds / 2 - 1] + commands[c].totals[rounds / 2]) / 2;
        printf("%s\t%.6f\t%.6f\t%ld\n", commands[c].name, median, commands[c].totals[0], commands[c].peak);
    }
    return 0;
}
