/* Inline SVG charts for the HTML reports: a plot frame with linear or log
 * axes, nice ticks, labelled axes with units, lines, bands, points and
 * reference lines. Every number is printed with a fixed number of decimals,
 * so the same data gives the same bytes. Colours are the Okabe-Ito palette
 * (safe for the common colour-vision deficiencies); every series also
 * differs by dash or marker shape, so no meaning rests on colour alone. */
#ifndef RS_SVG_H
#define RS_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "rightsize/buf.h"

/* Okabe & Ito, "Color Universal Design" (2002, revised 2008); docs/design.md cites it. */
#define RS_SVG_BLACK "#000000"
#define RS_SVG_ORANGE "#E69F00"
#define RS_SVG_SKY "#56B4E9"
#define RS_SVG_GREEN "#009E73"
#define RS_SVG_YELLOW "#F0E442"
#define RS_SVG_BLUE "#0072B2"
#define RS_SVG_VERMILION "#D55E00"
#define RS_SVG_PURPLE "#CC79A7"

/* The palette in series order (device 0, 1, ...). */
const char *rs_svg_color(size_t i);

typedef struct rs_svg_axis {
  double lo, hi;     /* data range */
  bool log;          /* log10 scale (lo > 0) */
  const char *label; /* with its unit: "request rate (req/s)" */
  bool categories;   /* bar rows: no ticks or grid (rs_svg_hbar labels them) */
} rs_svg_axis;

typedef struct rs_svg_plot {
  rs_buf *out;
  double left, top, width, height; /* the plot area in the picture, px */
  rs_svg_axis x, y;
} rs_svg_plot;

typedef enum { RS_SVG_CIRCLE, RS_SVG_SQUARE, RS_SVG_DIAMOND, RS_SVG_TRIANGLE } rs_svg_shape;

/* Writes s with &, <, >, " and ' escaped (text and attribute values). */
void rs_svg_escape(rs_buf *out, const char *s);

/* Opens a figure with an <svg> of w x h px whose <title> and <desc> say
 * what it shows (screen readers read them), and sets up *p with a plot
 * area inside the margins that leave room for tick and axis labels. */
void rs_svg_begin(rs_svg_plot *p, rs_buf *out, const char *id, int w, int h, const char *title,
                  const char *desc, const rs_svg_axis *x, const rs_svg_axis *y);
/* Draws the frame, grid, ticks with their values and the axis labels. */
void rs_svg_axes(const rs_svg_plot *p);
/* Closes the svg and the figure, with caption as its visible caption. */
void rs_svg_end(const rs_svg_plot *p, const char *caption);

/* The pixel position of data x and y (clamped to the plot area). */
double rs_svg_px(const rs_svg_plot *p, double x);
double rs_svg_py(const rs_svg_plot *p, double y);

/* A line through (xs[i], ys[i]), broken where a value is not finite; dash
 * is an SVG dash array or NULL for solid. */
void rs_svg_line(const rs_svg_plot *p, const double *xs, const double *ys, size_t n,
                 const char *color, double stroke, const char *dash, const char *label);
/* A filled band between lo[i] and hi[i] (one polygon per finite run). */
void rs_svg_band(const rs_svg_plot *p, const double *xs, const double *lo, const double *hi,
                 size_t n, const char *color, double opacity);
/* A horizontal (or, vertical, a vertical) reference line across the plot
 * with its label at the end. */
void rs_svg_rule(const rs_svg_plot *p, double v, bool vertical, const char *color, const char *dash,
                 const char *label);
/* One marker with a tooltip title. */
void rs_svg_marker(const rs_svg_plot *p, double x, double y, rs_svg_shape m, double r,
                   const char *color, bool filled, const char *title);
/* One legend entry (a short line or marker and its text) in row i of the
 * legend at the top right of the plot. */
void rs_svg_legend(const rs_svg_plot *p, size_t i, const char *color, const char *dash, bool marker,
                   rs_svg_shape m, const char *text);
/* A horizontal bar from x = lo to hi at band row i of nrows (category axis
 * on y), with a label left of the plot and the value's text after the bar. */
void rs_svg_hbar(const rs_svg_plot *p, size_t i, size_t nrows, double lo, double hi,
                 const char *color, const char *label, const char *value_text);

#endif
