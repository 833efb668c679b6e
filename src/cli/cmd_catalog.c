/* rightsize catalog: list, show, validate and diff instance catalogs. The
 * query and the writers are core's (catalog_query.h, report_catalog.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rightsize/pipeline.h"
#include "rightsize/arena.h"
#include "rightsize/buf.h"
#include "rightsize/catalog.h"
#include "rightsize/catalog_query.h"
#include "rightsize/pricing.h"
#include "rightsize/report_catalog.h"

typedef struct catalog_opts {
  rs_cli_catalog_opts catalog;
  rs_cli_scope_opts scope;
  unsigned families;
  rs_catalog_filter filter; /* the rest of the filter is parsed into it directly */
  rs_catalog_format format; /* a CHOICE field: int-sized */
  bool wide;
} catalog_opts;
_Static_assert(sizeof(rs_catalog_format) == sizeof(int) && sizeof(rs_catalog_sort) == sizeof(int),
               "a CHOICE field is an int");

#define OPT(m) offsetof(catalog_opts, m)
static const rs_cli_opt catalog_options[] = {
    RS_CLI_SCOPE_OPTIONS(catalog_opts, scope),
    {RS_CLI_OPT(
         "family", 0, RS_CLI_LIST, OPT(families), "FAMILIES",
         "list: only shapes for these model families, a comma list of nvidia-gpu, cpu, inferentia, "
         "trainium, tpu"),
     .choices = rs_family_names},
    {RS_CLI_OPT("category", 0, RS_CLI_CHOICE, OPT(filter.category), "NAME",
                "list: only gpu, accelerator, tpu or cpu shapes"),
     .choices = rs_category_names},
    {RS_CLI_OPT("accelerator", 0, RS_CLI_STRING, OPT(filter.accelerator), "KEY",
                "list: an accelerator key, or a substring of keys and names")},
    {RS_CLI_OPT("min-accel-mem", 0, RS_CLI_SIZE, OPT(filter.min_accel_mem), "SIZE",
                "list: at least this accelerator memory per device (16GB)"),
     .hi = INFINITY, .unit = "GB"},
    {RS_CLI_OPT("min-vcpus", 0, RS_CLI_NUMBER, OPT(filter.min_vcpus), "N",
                "list: at least N vCPUs"),
     .hi = INFINITY},
    {RS_CLI_OPT("max-price", 0, RS_CLI_NUMBER, OPT(filter.max_price), "USD",
                "list: at most this $/h under --pricing"),
     .hi = INFINITY},
    {RS_CLI_OPT("arch", 0, RS_CLI_CHOICE, OPT(filter.arch), "ARCH",
                "list: only x86_64 or arm64 hosts"),
     .choices = rs_arch_names + 1, .lo = RS_ARCH_X86_64},
    {RS_CLI_OPT("sort", 's', RS_CLI_CHOICE, OPT(filter.sort), "KEY",
                "list: price, price-per-accel or accel-mem (default: catalog order)"),
     .choices = rs_catalog_sort_names + 1, .lo = RS_CATALOG_SORT_PRICE},
    {RS_CLI_OPT("format", 'f', RS_CLI_CHOICE, OPT(format), "FORMAT",
                "list: table (default), json or csv"),
     .choices = rs_catalog_format_names},
    {RS_CLI_OPT("wide", 'w', RS_CLI_FLAG, OPT(wide), NULL,
                "list, show: every column (REGION, CATEGORY, ARCH, FLAG) and the full sha256; "
                "by default the table keeps to 100 columns")},
    RS_CLI_CATALOG_OPTIONS(catalog_opts, catalog),
    {0}};

static void init_options(void *opts) {
  catalog_opts *o = opts;
  rs_catalog_filter_init(&o->filter);
}

/* The subcommands and their positional arguments (after the subcommand). */
typedef enum { SUB_LIST, SUB_SHOW, SUB_VALIDATE, SUB_DIFF } subcommand;
static const char *const sub_names[] = {"list", "show", "validate", "diff", NULL};
static const struct {
  size_t nargs;
  const char *usage;
} sub_args[] = {{0, "catalog list takes no arguments"},
                {1, "catalog show needs one NAME"},
                {1, "catalog validate needs one FILE"},
                {2, "catalog diff needs OLD and NEW"}};

/* The subcommand named by args[0] with its arguments: its index, or -1
 * after a usage error in err. */
static int find_subcommand(const rs_cli_args *args, rs_error *err) {
  for (int k = 0; sub_names[k]; k++) {
    if (strcmp(args->args[0], sub_names[k]) != 0)
      continue;
    if (args->nargs - 1 != sub_args[k].nargs) {
      rs_error_set(err, RS_USAGE, NULL, 0, 0, "%s", sub_args[k].usage);
      return -1;
    }
    return k;
  }
  rs_error_set(err, RS_USAGE, NULL, 0, 0,
               "unknown catalog subcommand '%s', expected list, show, validate or diff",
               args->args[0]);
  return -1;
}

/* Loads the catalog and prices it under the basis and overlay asked for. */
static rs_status open_listing(rs_catalog_listing *l, rs_catalog **cat, rs_arena *arena,
                              const catalog_opts *o, rs_error *err) {
  rs_pipeline_options po;
  rs_pipeline p;
  memset(l, 0, sizeof(*l));
  rs_pipeline_options_init(&po);
  po.catalog = o->catalog.path;
  po.overlay = o->catalog.overlay;
  po.basis = l->basis = o->catalog.basis;
  l->wide = o->wide;
  rs_status st = rs_pipeline_open(&p, arena, &po, err);
  *cat = p.catalog;
  l->overlay = p.overlay;
  l->cat = *cat;
  return st;
}

static rs_status run_list(rs_buf *out, rs_arena *arena, const catalog_opts *o, rs_error *err) {
  rs_catalog_listing l;
  rs_catalog *cat;
  const rs_instance **rows;
  rs_catalog_filter f = o->filter;
  rs_status st = open_listing(&l, &cat, arena, o, err);
  f.providers = o->scope.providers;
  f.region = o->scope.region;
  f.families = o->families;
  if (st == RS_OK)
    st = rs_catalog_query(&rows, &l.nrows, arena, cat, &f, err);
  if (st != RS_OK)
    return st;
  l.rows = rows;
  return rs_report_catalog_list(out, &l, o->format);
}

static rs_status run_show(rs_buf *out, rs_arena *arena, const catalog_opts *o, const char *name,
                          rs_error *err) {
  rs_catalog_listing l;
  rs_catalog *cat;
  const rs_instance *in;
  rs_status st = open_listing(&l, &cat, arena, o, err);
  if (st != RS_OK)
    return st;
  in = rs_catalog_find(cat, name);
  if (in == NULL)
    return rs_error_set(err, RS_INVALID, NULL, 0, 0,
                        "no shape named '%s' in catalog %s (try 'rightsize catalog list')", name,
                        cat->version);
  l.rows = &in;
  l.nrows = 1;
  return rs_report_catalog_show(out, &l);
}

static rs_status run_diff(rs_buf *out, rs_arena *arena, const char *old_path, const char *new_path,
                          rs_error *err) {
  rs_catalog *a, *b;
  rs_catalog_diff d;
  rs_status st = rs_catalog_load(&a, arena, old_path, err);
  if (st == RS_OK)
    st = rs_catalog_load(&b, arena, new_path, err);
  if (st == RS_OK)
    st = rs_catalog_diff_compute(&d, arena, a, b, err);
  return st == RS_OK ? rs_report_catalog_diff(out, &d) : st;
}

static rs_status dispatch(rs_buf *out, rs_arena *arena, const rs_cli_args *args, subcommand sub,
                          const catalog_opts *o, rs_error *err) {
  rs_catalog *cat;
  rs_status st;
  switch (sub) {
  case SUB_LIST: return run_list(out, arena, o, err);
  case SUB_SHOW: return run_show(out, arena, o, args->args[1], err);
  case SUB_VALIDATE:
    st = rs_catalog_load(&cat, arena, args->args[1], err);
    return st == RS_OK ? rs_report_catalog_validate(out, cat) : st;
  case SUB_DIFF: return run_diff(out, arena, args->args[1], args->args[2], err);
  }
  return RS_INTERNAL;
}

static int run_catalog(const rs_cli_args *args) {
  const catalog_opts *o = args->opts;
  rs_arena arena;
  rs_error err;
  rs_buf out;
  rs_status st;
  int rc, sub;
  rs_error_clear(&err);
  if ((sub = find_subcommand(args, &err)) < 0)
    return rs_cli_usage_error("catalog", err.msg);
  rs_arena_init(&arena, 0);
  rs_buf_init(&out, 0);
  st = dispatch(&out, &arena, args, (subcommand)sub, o, &err);
  if (st != RS_OK && out.failed)
    rs_error_set(&err, st, NULL, 0, 0, "%s while writing the output", rs_status_message(st));
  rc = rs_cli_finish(args, false, st, &err, &out, NULL);
  rs_buf_release(&out);
  rs_arena_release(&arena);
  return rc;
}

const rs_cli_command rs_cmd_catalog = {
    .name = "catalog",
    .summary = "list, show, validate and diff instance catalogs",
    .usage = "list [filters] | show NAME | validate FILE | diff OLD NEW [options]",
    .description =
        "Works on the instance catalog (docs/catalog-format.md): the built-in one, or the\n"
        "file or directory given with --catalog (a directory means its newest *.yaml by\n"
        "version order). 'list' filters and sorts shapes, prices always shown (on-demand\n"
        "USD per hour in the region shown; '-' when the catalog has none; FLAG 'suspect'\n"
        "marks a price the sources doubt). 'show' prints a shape with its accelerator's\n"
        "specs. 'validate' checks a catalog file and prints 'ok' or the first problem at\n"
        "file:line:col (exit 3). 'diff' lists shapes added and removed and price changes.",
    .options = catalog_options,
    .opts_size = sizeof(catalog_opts),
    .init = init_options,
    .args = {1, 3, "subcommand: list, show, validate or diff"},
    .run = run_catalog,
    .report = true,
    .examples = "  rightsize catalog list --provider aws,gcp --accelerator T4 --sort price\n"
                "  rightsize catalog show g5.xlarge\n"
                "  rightsize catalog diff old.yaml new.yaml\n",
};
