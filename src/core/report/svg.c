/* Inline SVG charts (svg.h). Coordinates are printed with one decimal and
 * tick values with the decimals their step needs: the bytes depend on the
 * data only. */
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MARGIN_LEFT 72.0
#define MARGIN_RIGHT 24.0
#define MARGIN_TOP 14.0
#define MARGIN_BOTTOM 48.0
#define MAX_TICKS 12

static const char *const palette[] = {RS_SVG_BLUE,      RS_SVG_ORANGE, RS_SVG_GREEN,  RS_SVG_PURPLE,
                                      RS_SVG_VERMILION, RS_SVG_SKY,    RS_SVG_YELLOW, RS_SVG_BLACK};

const char *rs_svg_color(size_t i) { return palette[i % (sizeof(palette) / sizeof(palette[0]))]; }

/* Markup characters as entities; control bytes (untrusted names, labels)
 * as the visible \xHH of the one escaping rule (src/util/escape.h), since
 * XML 1.0 forbids most of them outright. */
void rs_svg_escape(rs_buf *out, const char *s) {
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f) {
      rs_buf_printf(out, "\\x%02X", c);
      continue;
    }
    switch (*s) {
    case '&': rs_buf_puts(out, "&amp;"); break;
    case '<': rs_buf_puts(out, "&lt;"); break;
    case '>': rs_buf_puts(out, "&gt;"); break;
    case '"': rs_buf_puts(out, "&quot;"); break;
    case '\'': rs_buf_puts(out, "&#39;"); break;
    default: rs_buf_putc(out, *s);
    }
  }
}

static double scale(const rs_svg_axis *a, double v) {
  if (a->log)
    return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  return (v - a->lo) / (a->hi - a->lo);
}

static double clamp01(double f) { return f < 0 ? 0 : f > 1 ? 1 : f; }

double rs_svg_px(const rs_svg_plot *p, double x) {
  return p->left + clamp01(scale(&p->x, x)) * p->width;
}

double rs_svg_py(const rs_svg_plot *p, double y) {
  return p->top + (1.0 - clamp01(scale(&p->y, y))) * p->height;
}

/* A usable range: finite, lo < hi (a flat series gets a unit of room). */
static void fix_axis(rs_svg_axis *a) {
  if (!isfinite(a->lo) || !isfinite(a->hi)) {
    a->lo = a->log ? 1 : 0;
    a->hi = a->log ? 10 : 1;
  }
  if (a->log && !(a->lo > 0))
    a->log = false;
  if (!(a->hi > a->lo))
    a->hi = a->log ? a->lo * 10.0 : a->lo + 1.0;
}

void rs_svg_begin(rs_svg_plot *p, rs_buf *out, const char *id, int w, int h, const char *title,
                  const char *desc, const rs_svg_axis *x, const rs_svg_axis *y) {
  p->out = out;
  p->left = MARGIN_LEFT;
  p->top = MARGIN_TOP;
  p->width = w - MARGIN_LEFT - MARGIN_RIGHT;
  p->height = h - MARGIN_TOP - MARGIN_BOTTOM;
  p->x = *x;
  p->y = *y;
  fix_axis(&p->x);
  fix_axis(&p->y);
  rs_buf_printf(out, "<figure class=\"chart\" id=\"%s\">\n", id);
  rs_buf_printf(out,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                "height=\"%d\" role=\"img\" aria-labelledby=\"%s-t %s-d\">\n<title id=\"%s-t\">",
                w, h, w, h, id, id, id);
  rs_svg_escape(out, title);
  rs_buf_printf(out, "</title>\n<desc id=\"%s-d\">", id);
  rs_svg_escape(out, desc);
  rs_buf_puts(out, "</desc>\n");
}

/* Linear ticks: a step of 1, 2 or 5 x 10^k giving at most MAX_TICKS / 2 + 1. */
static double tick_step(double lo, double hi) {
  double raw = (hi - lo) / 6.0, mag = pow(10.0, floor(log10(raw)));
  double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void put_tick_value(rs_buf *out, double v, double step) {
  int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  rs_buf_printf(out, "%.*f", dec, fabs(v) < step * 1e-6 ? 0.0 : v);
}

static void tick(const rs_svg_plot *p, bool on_x, double v, double step) {
  rs_buf *out = p->out;
  if (on_x) {
    double x = rs_svg_px(p, v);
    rs_buf_printf(out,
                  "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                  x, p->top, x, p->top + p->height, x, p->top + p->height + 16);
  } else {
    double y = rs_svg_py(p, v);
    rs_buf_printf(out,
                  "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                  p->left, y, p->left + p->width, y, p->left - 6, y + 4);
  }
  put_tick_value(out, v, step);
  rs_buf_puts(out, "</text>\n");
}

static void ticks(const rs_svg_plot *p, const rs_svg_axis *a, bool on_x) {
  if (a->categories)
    return;
  if (a->log) {
    static const double mult[] = {1, 2, 5};
    for (double e = floor(log10(a->lo)); e <= ceil(log10(a->hi)); e++)
      for (int i = 0; i < 3; i++) {
        double v = mult[i] * pow(10.0, e);
        if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9))
          tick(p, on_x, v, v);
      }
    return;
  }
  double step = tick_step(a->lo, a->hi);
  int n = 0;
  for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 && n < MAX_TICKS;
       v += step, n++)
    tick(p, on_x, v, step);
}

void rs_svg_axes(const rs_svg_plot *p) {
  rs_buf *out = p->out;
  rs_buf_puts(out, "<g class=\"axes\">\n");
  ticks(p, &p->x, true);
  ticks(p, &p->y, false);
  rs_buf_printf(out,
                "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                p->left, p->top, p->width, p->height);
  rs_buf_printf(out, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                p->left + p->width / 2, p->top + p->height + 38);
  rs_svg_escape(out, p->x.label);
  rs_buf_printf(out,
                "</text>\n<text class=\"axis-label\" transform=\"translate(16 %.1f) rotate(-90)\" "
                "text-anchor=\"middle\">",
                p->top + p->height / 2);
  rs_svg_escape(out, p->y.label);
  rs_buf_puts(out, "</text>\n</g>\n");
}

void rs_svg_end(const rs_svg_plot *p, const char *caption) {
  rs_buf_puts(p->out, "</svg>\n<figcaption>");
  rs_svg_escape(p->out, caption);
  rs_buf_puts(p->out, "</figcaption>\n</figure>\n");
}

static bool visible(const rs_svg_plot *p, double x, double y) {
  return isfinite(x) && isfinite(y) && (!p->x.log || x > 0) && (!p->y.log || y > 0);
}

void rs_svg_line(const rs_svg_plot *p, const double *xs, const double *ys, size_t n,
                 const char *color, double stroke, const char *dash, const char *label) {
  bool open = false;
  for (size_t i = 0; i <= n; i++) {
    bool ok = i < n && visible(p, xs[i], ys[i]);
    if (ok && !open) {
      rs_buf_printf(p->out,
                    "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" "
                    "stroke-width=\"%.1f\"",
                    color, stroke);
      if (dash)
        rs_buf_printf(p->out, " stroke-dasharray=\"%s\"", dash);
      if (label) {
        rs_buf_puts(p->out, " data-series=\"");
        rs_svg_escape(p->out, label);
        rs_buf_putc(p->out, '"');
      }
      rs_buf_puts(p->out, " points=\"");
      open = true;
    } else if (!ok && open) {
      rs_buf_rstrip(p->out);
      rs_buf_puts(p->out, "\"/>\n");
      open = false;
    }
    if (ok)
      rs_buf_printf(p->out, "%.1f,%.1f ", rs_svg_px(p, xs[i]), rs_svg_py(p, ys[i]));
  }
}

void rs_svg_band(const rs_svg_plot *p, const double *xs, const double *lo, const double *hi,
                 size_t n, const char *color, double opacity) {
  size_t i = 0;
  while (i < n) {
    if (!visible(p, xs[i], lo[i]) || !visible(p, xs[i], hi[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && visible(p, xs[j], lo[j]) && visible(p, xs[j], hi[j]))
      j++;
    rs_buf_printf(p->out, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"%.2f\" points=\"",
                  color, opacity);
    for (size_t k = i; k < j; k++)
      rs_buf_printf(p->out, "%.1f,%.1f ", rs_svg_px(p, xs[k]), rs_svg_py(p, hi[k]));
    for (size_t k = j; k-- > i;)
      rs_buf_printf(p->out, "%.1f,%.1f ", rs_svg_px(p, xs[k]), rs_svg_py(p, lo[k]));
    rs_buf_rstrip(p->out);
    rs_buf_puts(p->out, "\"/>\n");
    i = j;
  }
}

void rs_svg_rule(const rs_svg_plot *p, double v, bool vertical, const char *color, const char *dash,
                 const char *label) {
  if (!isfinite(v))
    return;
  double x1 = p->left, x2 = p->left + p->width, y1 = rs_svg_py(p, v), y2 = y1;
  if (vertical) {
    x1 = x2 = rs_svg_px(p, v);
    y1 = p->top;
    y2 = p->top + p->height;
  }
  rs_buf_printf(p->out,
                "<line class=\"rule\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
                x1, y1, x2, y2, color, dash ? dash : "none");
  if (!label)
    return;
  if (vertical)
    rs_buf_printf(p->out, "<text class=\"rule-label\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x1 + 4,
                  p->top + 12, color);
  else
    rs_buf_printf(p->out,
                  "<text class=\"rule-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                  "fill=\"%s\">",
                  x2 - 4, y1 - 4, color);
  rs_svg_escape(p->out, label);
  rs_buf_puts(p->out, "</text>\n");
}

static void marker_shape(rs_buf *out, double x, double y, rs_svg_shape m, double r) {
  switch (m) {
  case RS_SVG_SQUARE:
    rs_buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x - r, y - r,
                  2 * r, 2 * r);
    break;
  case RS_SVG_DIAMOND:
    rs_buf_printf(out, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x,
                  y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y);
    break;
  case RS_SVG_TRIANGLE:
    rs_buf_printf(out, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x, y - r * 1.2,
                  x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8);
    break;
  default: rs_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r);
  }
}

void rs_svg_marker(const rs_svg_plot *p, double x, double y, rs_svg_shape m, double r,
                   const char *color, bool filled, const char *title) {
  if (!visible(p, x, y))
    return;
  rs_buf_puts(p->out, "<g class=\"point\">");
  marker_shape(p->out, rs_svg_px(p, x), rs_svg_py(p, y), m, r);
  rs_buf_printf(p->out, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\">", filled ? color : "#fff",
                color);
  rs_buf_puts(p->out, "<title>");
  rs_svg_escape(p->out, title);
  rs_buf_puts(p->out, "</title>");
  switch (m) {
  case RS_SVG_SQUARE: rs_buf_puts(p->out, "</rect>"); break;
  case RS_SVG_CIRCLE: rs_buf_puts(p->out, "</circle>"); break;
  default: rs_buf_puts(p->out, "</polygon>");
  }
  rs_buf_puts(p->out, "</g>\n");
}

void rs_svg_legend(const rs_svg_plot *p, size_t i, const char *color, const char *dash, bool marker,
                   rs_svg_shape m, const char *text) {
  double x = p->left + 10, y = p->top + 14 + 16 * (double)i;
  /* a light backing keeps the entry readable over the data */
  rs_buf_printf(p->out,
                "<g class=\"legend\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"16\" fill=\"#fff\" fill-opacity=\"0.8\"/>",
                x - 4, y - 12, 32 + 7.0 * (double)strlen(text));
  if (marker) {
    marker_shape(p->out, x + 9, y - 4, m, 4);
    rs_buf_printf(p->out, " fill=\"%s\" stroke=\"%s\"/>", color, color);
  } else {
    rs_buf_printf(p->out,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"2.5\" stroke-dasharray=\"%s\"/>",
                  x, y - 4, x + 18, y - 4, color, dash ? dash : "none");
  }
  rs_buf_printf(p->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 24, y);
  rs_svg_escape(p->out, text);
  rs_buf_puts(p->out, "</text></g>\n");
}

void rs_svg_hbar(const rs_svg_plot *p, size_t i, size_t nrows, double lo, double hi,
                 const char *color, const char *label, const char *value_text) {
  double row = p->height / (double)(nrows ? nrows : 1), y = p->top + row * (double)i;
  if (!isfinite(lo) || !isfinite(hi))
    lo = hi = p->x.lo; /* no value (an unpriced shape): the label and text only */
  double x1 = rs_svg_px(p, lo < hi ? lo : hi), x2 = rs_svg_px(p, lo < hi ? hi : lo);
  rs_buf_printf(p->out,
                "<g class=\"bar\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"%s\"><title>",
                x1, y + row * 0.15, x2 - x1, row * 0.7, color);
  rs_svg_escape(p->out, label);
  rs_buf_puts(p->out, ": ");
  rs_svg_escape(p->out, value_text);
  rs_buf_printf(p->out,
                "</title></rect><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"end\">",
                p->left - 6, y + row * 0.5 + 4);
  rs_svg_escape(p->out, label);
  rs_buf_printf(p->out, "</text><text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", x2 + 4,
                y + row * 0.5 + 4);
  rs_svg_escape(p->out, value_text);
  rs_buf_puts(p->out, "</text></g>\n");
}
