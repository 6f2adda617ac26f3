/* md4c's peer in `make bench` (scripts/bench.sh builds it from Debian's libmd4c-dev and libmd4c-html0-dev):
 * the minimal md_html() driver, `md4c-html [--gfm] [FILE]`, reading FILE (or standard input) whole and
 * writing the HTML to standard output in one write. Raw HTML is passed through, as pbctl and cmark --unsafe do;
 * --gfm is md4c's GitHub dialect (tables, strikethrough, task lists, permissive autolinks). */
#include <md4c-html.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buffer { char *data; size_t size, capacity; };

static void append(const MD_CHAR *text, MD_SIZE size, void *context) {
    struct buffer *b = context;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 65536;
        while (capacity < b->size + size) capacity *= 2;
        char *data = realloc(b->data, capacity);
        if (!data) { perror("md4c-html"); exit(1); }
        b->data = data; b->capacity = capacity;
    }
    memcpy(b->data + b->size, text, size);
    b->size += size;
}

int main(int argc, char **argv) {
    unsigned flags = MD_DIALECT_COMMONMARK;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gfm") == 0) flags = MD_DIALECT_GITHUB;
        else path = argv[i];
    }
    FILE *in = path ? fopen(path, "rb") : stdin;
    if (!in) { perror(path); return 1; }
    struct buffer input = {0}, output = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) append(chunk, (MD_SIZE)n, &input);
    output.capacity = input.size + input.size / 4 + 64;
    output.data = malloc(output.capacity);
    if (md_html(input.data ? input.data : "", (MD_SIZE)input.size, append, &output, flags, 0) != 0) {
        fprintf(stderr, "md4c-html: parse failed\n");
        return 1;
    }
    if (output.size && fwrite(output.data, 1, output.size, stdout) != output.size) return 1;
    return 0;
}
