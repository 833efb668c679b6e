/* rightsize completion bash|zsh|fish: shell completions made from the
 * command and option tables, so they never fall behind the parser. Hidden
 * from the command list; cmake --install installs all three. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef enum { SH_BASH, SH_ZSH, SH_FISH } shell;
static const char *const shell_names[] = {"bash", "zsh", "fish", NULL};

/* An option's table for a command, in turn: its own, then the shared ones. */
#define EACH_TABLE(cmd, t, i)                                                                      \
  for (int i = 0; i < 2; i++)                                                                      \
    for (const rs_cli_opt *t = i ? ((cmd)->report ? rs_cli_common_options : NULL)                  \
                                 : (cmd)->options;                                                 \
         t && t->name; t++)

/* s with the characters a shell's quoting or zsh's spec syntax would
 * misread replaced: quotes, brackets, colons, backslashes. */
static void put_plain(const char *s) {
  for (; *s; s++)
    putchar(strchr("'\"[]:\\`$", *s) ? ' ' : *s);
}

static void put_choices(const rs_cli_opt *o, const char *sep) {
  for (size_t k = 0; o->choices && o->choices[k]; k++)
    printf("%s%s", k ? sep : "", o->choices[k]);
  if (o->kind == RS_CLI_LIST && o->all)
    printf("%sall", sep);
}

static bool has_choices(const rs_cli_opt *o) {
  return (o->kind == RS_CLI_CHOICE || o->kind == RS_CLI_LIST) && o->choices;
}

static void bash_command(const rs_cli_command *c) {
  printf("  %s)\n    case \"$prev\" in\n", c->name);
  EACH_TABLE(c, o, i) {
    if (!has_choices(o))
      continue;
    printf("    --%s", o->name);
    if (o->short_name)
      printf("|-%c", o->short_name);
    printf(") COMPREPLY=($(compgen -W \"");
    put_choices(o, " ");
    printf("\" -- \"$cur\")); return ;;\n");
  }
  printf("    esac\n    opts=\"--help");
  EACH_TABLE(c, o, i) {
    printf(" --%s", o->name);
    if (o->short_name)
      printf(" -%c", o->short_name);
  }
  printf("\" ;;\n");
}

static void print_bash(void) {
  printf("# bash completion for rightsize (rightsize completion bash)\n"
         "_rightsize() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"--help --version");
  for (size_t i = 0; rs_cli_commands[i]; i++)
    printf(" %s", rs_cli_commands[i]->name);
  printf("\" -- \"$cur\"))\n    return\n  fi\n  case \"${COMP_WORDS[1]}\" in\n");
  for (size_t i = 0; rs_cli_commands[i]; i++)
    bash_command(rs_cli_commands[i]);
  printf("  *) return ;;\n  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o default -F _rightsize rightsize\n");
}

/* One zsh _arguments spec per name of o. */
static void zsh_option(const rs_cli_opt *o) {
  for (int s = 0; s < 2; s++) {
    if (s == 1 && !o->short_name)
      break;
    printf("      '");
    if (s == 0)
      printf("--%s", o->name);
    else
      printf("-%c", o->short_name);
    printf("[");
    put_plain(o->help);
    printf("]");
    if (has_choices(o)) {
      printf(":%s:(", o->arg);
      put_choices(o, " ");
      printf(")");
    } else if (o->kind == RS_CLI_PATH) {
      printf(":%s:_files", o->arg);
    } else if (o->kind != RS_CLI_FLAG) {
      printf(":%s: ", o->arg);
    }
    printf("' \\\n");
  }
}

static void print_zsh(void) {
  printf("#compdef rightsize\n# zsh completion for rightsize (rightsize completion zsh)\n"
         "_rightsize() {\n  local -a cmds\n  cmds=(\n");
  for (size_t i = 0; rs_cli_commands[i]; i++) {
    printf("    '%s:", rs_cli_commands[i]->name);
    put_plain(rs_cli_commands[i]->summary);
    printf("'\n");
  }
  printf("  )\n  if (( CURRENT == 2 )); then\n    _describe command cmds\n    return\n  fi\n"
         "  case $words[2] in\n");
  for (size_t i = 0; rs_cli_commands[i]; i++) {
    const rs_cli_command *c = rs_cli_commands[i];
    printf("  %s)\n    words=(\"${(@)words[2,-1]}\"); (( CURRENT-- ))\n    _arguments -s \\\n",
           c->name);
    EACH_TABLE(c, o, k)
    zsh_option(o);
    printf("      '(- *)'{-h,--help}'[show this help]' \\\n      '*:file:_files' ;;\n");
  }
  printf("  esac\n}\nif [ \"$funcstack[1]\" = _rightsize ]; then\n  _rightsize \"$@\"\n"
         "else\n  compdef _rightsize rightsize\nfi\n");
}

static void print_fish(void) {
  printf("# fish completion for rightsize (rightsize completion fish)\n"
         "complete -c rightsize -f\n");
  for (size_t i = 0; rs_cli_commands[i]; i++) {
    printf("complete -c rightsize -n __fish_use_subcommand -a %s -d '", rs_cli_commands[i]->name);
    put_plain(rs_cli_commands[i]->summary);
    printf("'\n");
  }
  for (size_t i = 0; rs_cli_commands[i]; i++) {
    const rs_cli_command *c = rs_cli_commands[i];
    printf("complete -c rightsize -n '__fish_seen_subcommand_from %s' -F\n", c->name);
    EACH_TABLE(c, o, k) {
      printf("complete -c rightsize -n '__fish_seen_subcommand_from %s' -l %s", c->name, o->name);
      if (o->short_name)
        printf(" -s %c", o->short_name);
      if (has_choices(o)) {
        printf(" -x -a '");
        put_choices(o, " ");
        printf("'");
      } else if (o->kind != RS_CLI_FLAG) {
        printf(" -r%s", o->kind == RS_CLI_PATH ? " -F" : "");
      }
      printf(" -d '");
      put_plain(o->help);
      printf("'\n");
    }
  }
}

typedef struct completion_opts {
  int unused;
} completion_opts;

static int run_completion(const rs_cli_args *args) {
  for (int s = 0; shell_names[s]; s++) {
    if (strcmp(args->args[0], shell_names[s]) != 0)
      continue;
    if (s == SH_BASH)
      print_bash();
    else if (s == SH_ZSH)
      print_zsh();
    else
      print_fish();
    return fflush(stdout) == 0 ? 0 : 5;
  }
  return rs_cli_usage_error("completion", "completion needs a SHELL: bash, zsh or fish");
}

static const rs_cli_opt completion_options[] = {{0}};

const rs_cli_command rs_cmd_completion = {
    .name = "completion",
    .summary = "print a shell completion script (bash, zsh, fish)",
    .usage = "bash|zsh|fish",
    .description = "Prints the completion script for the shell, made from the option tables.\n"
                   "cmake --install installs all three; to load one by hand:\n"
                   "source <(rightsize completion bash).",
    .options = completion_options,
    .opts_size = sizeof(completion_opts),
    .args = {1, 1, "SHELL"},
    .run = run_completion,
    .hidden = true,
    .examples = "  source <(rightsize completion bash)\n"
                "  rightsize completion fish > ~/.config/fish/completions/rightsize.fish\n",
};
