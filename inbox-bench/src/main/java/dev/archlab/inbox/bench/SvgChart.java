package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A grouped bar chart of throughput per system and connection count, written as plain SVG so no
 * plotting library is needed. The axis is logarithmic: the batch system is an order of magnitude
 * above the others, and on a linear axis every single-message system would be a sliver.
 */
final class SvgChart {

  private static final String[] COLORS = {
    "#555555", "#1f77b4", "#999999", "#2ca02c", "#17becf", "#d62728", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2"
  };

  private SvgChart() {}

  static void writeThroughput(List<Map<String, String>> load, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, throughput(load), StandardCharsets.UTF_8);
  }

  static String throughput(List<Map<String, String>> load) {
    Set<String> systems = new LinkedHashSet<>();
    Set<Integer> connections = new LinkedHashSet<>();
    double max = 1;
    double min = Double.MAX_VALUE;
    for (Map<String, String> r : load) {
      systems.add(r.get("system"));
      connections.add((int) Csv.number(r, "connections"));
      double v = Csv.number(r, "msgs_per_s");
      if (v > 0) {
        max = Math.max(max, v);
        min = Math.min(min, v);
      }
    }
    double lo = Math.pow(10, Math.floor(Math.log10(Math.min(min, max))));
    double hi = Math.pow(10, Math.ceil(Math.log10(max)));
    if (hi <= lo) {
      hi = lo * 10;
    }
    List<String> systemList = new ArrayList<>(systems);
    int left = 80;
    int top = 40;
    int plotHeight = 360;
    int barWidth = 16;
    int groupGap = 30;
    int groupWidth = Math.max(1, systemList.size()) * barWidth;
    int plotWidth = Math.max(1, connections.size()) * (groupWidth + groupGap) + groupGap;
    int legendWidth = 190;
    int width = left + plotWidth + legendWidth;
    int height = top + plotHeight + 60;
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\">%n",
            width,
            height));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"20\" font-size=\"14\">Messages per second by system and"
                + " connection count (log scale, PostgreSQL, fsync on)</text>%n",
            left));
    double logLo = Math.log10(lo);
    double logSpan = Math.log10(hi) - logLo;
    for (double tick = lo; tick <= hi * 1.0001; tick *= 10) {
      int y =
          top + plotHeight - (int) Math.round((Math.log10(tick) - logLo) / logSpan * plotHeight);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#dddddd\"/>"
                  + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
              left,
              y,
              left + plotWidth,
              y,
              left - 6,
              y + 4,
              label(tick)));
    }
    int g = 0;
    for (int c : connections) {
      int groupX = left + groupGap + g * (groupWidth + groupGap);
      for (int s = 0; s < systemList.size(); s++) {
        Double v = Targets.throughput(load, systemList.get(s), c);
        if (v == null || !(v > 0)) {
          continue;
        }
        int h = (int) Math.round((Math.log10(Math.max(v, lo)) - logLo) / logSpan * plotHeight);
        int x = groupX + s * barWidth;
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                    + "<title>%s, %d connections: %.0f msg/s</title></rect>%n",
                x,
                top + plotHeight - h,
                barWidth - 2,
                h,
                COLORS[s % COLORS.length],
                systemList.get(s),
                c,
                v));
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d connection%s</text>%n",
              groupX + groupWidth / 2,
              top + plotHeight + 18,
              c,
              c == 1 ? "" : "s"));
      g++;
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            left,
            top + plotHeight,
            left + plotWidth,
            top + plotHeight));
    for (int s = 0; s < systemList.size(); s++) {
      int y = top + 10 + s * 18;
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  + "<text x=\"%d\" y=\"%d\">%s</text>%n",
              left + plotWidth + 20,
              y,
              COLORS[s % COLORS.length],
              left + plotWidth + 38,
              y + 10,
              systemList.get(s)));
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static String label(double v) {
    if (v >= 1_000_000) {
      return String.format(Locale.ROOT, "%.0fM", v / 1_000_000);
    }
    if (v >= 1_000) {
      return String.format(Locale.ROOT, "%.0fk", v / 1_000);
    }
    return String.format(Locale.ROOT, "%.0f", v);
  }
}
