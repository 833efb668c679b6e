/* The model facts table (catalogs/models.csv, generated into
 * llm_facts_table.inc) and KV-cache bytes from the architecture. */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "llm.h"

static const rs_llm_facts facts[] = {
#include "llm_facts_table.inc"
};

#define NFACTS (sizeof(facts) / sizeof(facts[0]))

const rs_llm_facts *rs_llm_facts_at(size_t i) { return i < NFACTS ? &facts[i] : NULL; }

/* name without an organisation prefix and a fine-tuning suffix, lowercased
 * into buf; false when it does not fit. */
static bool normalize(char *buf, size_t size, const char *name) {
  static const char *const suffixes[] = {"-instruct", "-chat-hf", "-chat", "-hf", "-it"};
  const char *slash = strrchr(name, '/');
  const char *s = slash ? slash + 1 : name;
  size_t n = strlen(s);
  if (n >= size)
    return false;
  for (size_t i = 0; i < n; i++)
    buf[i] = (char)tolower((unsigned char)s[i]);
  buf[n] = '\0';
  if (strncmp(buf, "meta-llama-", 11) == 0)
    memmove(buf, buf + 5, n - 4); /* "Meta-Llama-3.1-8B" -> "llama-3.1-8b" */
  for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
    size_t len = strlen(buf), sl = strlen(suffixes[i]);
    if (len > sl && strcmp(buf + len - sl, suffixes[i]) == 0)
      buf[len - sl] = '\0';
  }
  return true;
}

const rs_llm_facts *rs_llm_facts_find(const char *name) {
  char want[128], have[128];
  if (name == NULL || !normalize(want, sizeof(want), name))
    return NULL;
  for (size_t i = 0; i < NFACTS; i++) {
    if (strcasecmp(facts[i].name, name) == 0 || strcasecmp(facts[i].hf_id, name) == 0)
      return &facts[i];
    if ((normalize(have, sizeof(have), facts[i].name) && strcmp(have, want) == 0) ||
        (normalize(have, sizeof(have), facts[i].hf_id) && strcmp(have, want) == 0))
      return &facts[i];
  }
  return NULL;
}

double rs_llm_kv_bytes_per_token(unsigned layers, unsigned kv_heads, unsigned head_dim,
                                 double value_bytes) {
  return 2.0 * (double)layers * (double)kv_heads * (double)head_dim * value_bytes;
}

double rs_llm_kv_bytes_seq(const rs_llm_demand *l, double tokens) {
  double per_layer = l->kv_bytes_per_token / (double)(l->layers ? l->layers : 1);
  unsigned windowed = l->window ? l->window_layers : 0;
  double capped = l->window ? fmin(tokens, (double)l->window) : tokens;
  return per_layer * ((double)(l->layers - windowed) * tokens + (double)windowed * capped);
}
