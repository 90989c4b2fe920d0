package dev.archlab.inbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Minimal CSV: a header row, comma-separated values that never contain commas or quotes. */
final class Csv {

  private Csv() {}

  static void write(Path file, List<String> header, List<List<Object>> rows) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    StringBuilder sb = new StringBuilder(String.join(",", header)).append('\n');
    for (List<Object> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        sb.append(i == 0 ? "" : ",").append(format(row.get(i)));
      }
      sb.append('\n');
    }
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
  }

  /** Rows as maps from header name to value, in file order; empty if the file does not exist. */
  static List<Map<String, String>> read(Path file) throws IOException {
    List<Map<String, String>> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty()) {
      return out;
    }
    String[] header = lines.get(0).split(",", -1);
    for (String line : lines.subList(1, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] cells = line.split(",", -1);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], i < cells.length ? cells[i] : "");
      }
      out.add(row);
    }
    return out;
  }

  static String format(Object value) {
    if (value instanceof Double d) {
      return d.isNaN() ? "" : String.format(Locale.ROOT, "%.3f", d);
    }
    return String.valueOf(value).replace(',', ';');
  }

  static double number(Map<String, String> row, String column) {
    String v = row.get(column);
    return v == null || v.isBlank() ? Double.NaN : Double.parseDouble(v);
  }
}
