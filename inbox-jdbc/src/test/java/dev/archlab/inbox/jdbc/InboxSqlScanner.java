package dev.archlab.inbox.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds SQL on the inbox table in Java source text. The source is cut into Java statements (at
 * {@code ;}, <code>{</code> and <code>}</code> outside literals and comments); a statement counts
 * as inbox SQL when its string literals, joined, hold an SQL verb on a table (SELECT … FROM, INSERT
 * INTO, UPDATE, DELETE FROM, MERGE INTO, CREATE INDEX, written in upper case as this project writes
 * SQL) and either the literals name a column only the inbox table has, or the code around them
 * concatenates the inbox table's name or its column list ({@code table}, {@code COLUMNS}). Comments
 * are ignored, so prose about SQL is not flagged.
 */
final class InboxSqlScanner {

  private static final Pattern VERB =
      Pattern.compile(
          "\\bSELECT\\b[\\s\\S]*\\bFROM\\b|\\bINSERT\\s+(IGNORE\\s+)?INTO\\b|\\bUPDATE\\s*$"
              + "|\\bUPDATE\\s+\\w|\\bDELETE\\s+FROM\\b|\\bMERGE\\s+INTO\\b"
              + "|\\bCREATE\\s+(UNIQUE\\s+)?INDEX\\b");

  /** Columns of the inbox table that the project's other tables do not have. */
  private static final Pattern INBOX_COLUMN =
      Pattern.compile("\\b(consumer|state|attempts|lease_until|last_error|payload_hash)\\b");

  /** Code that puts the inbox table's name or column list into a statement. */
  private static final Pattern INBOX_CODE =
      Pattern.compile("\\b(table|TABLE|tableName|t|COLUMNS)\\b|\\.table\\(\\)");

  private InboxSqlScanner() {}

  /** The Java statements of {@code source} that hold SQL on the inbox table, as their literals. */
  static List<String> inboxSql(String source) {
    List<String> found = new ArrayList<>();
    StringBuilder code = new StringBuilder();
    StringBuilder literals = new StringBuilder();
    int i = 0;
    int n = source.length();
    while (i < n) {
      char ch = source.charAt(i);
      if (source.startsWith("//", i)) {
        i = endOf(source, i, "\n");
      } else if (source.startsWith("/*", i)) {
        i = endOf(source, i + 2, "*/");
      } else if (source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end;
        literals.append(source, i + 3, end).append(' ');
        code.append(" \"\" ");
        i = Math.min(n, end + 3);
      } else if (ch == '"' || ch == '\'') {
        int j = i + 1;
        StringBuilder text = new StringBuilder();
        while (j < n && source.charAt(j) != ch) {
          if (source.charAt(j) == '\\' && j + 1 < n) {
            j++;
          }
          text.append(source.charAt(j));
          j++;
        }
        if (ch == '"') {
          literals.append(text).append(' ');
        }
        code.append(" \"\" ");
        i = j + 1;
      } else if (ch == ';' || ch == '{' || ch == '}') {
        check(code, literals, found);
        i++;
      } else {
        code.append(ch);
        i++;
      }
    }
    check(code, literals, found);
    return found;
  }

  private static int endOf(String source, int from, String terminator) {
    int end = source.indexOf(terminator, from);
    return end < 0 ? source.length() : end + terminator.length();
  }

  private static void check(StringBuilder code, StringBuilder literals, List<String> found) {
    String text = literals.toString();
    if (VERB.matcher(text).find()
        && (INBOX_COLUMN.matcher(text).find() || INBOX_CODE.matcher(code).find())) {
      found.add(text.strip().replaceAll("\\s+", " "));
    }
    code.setLength(0);
    literals.setLength(0);
  }
}
