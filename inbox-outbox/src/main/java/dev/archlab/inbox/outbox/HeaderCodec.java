package dev.archlab.inbox.outbox;

import dev.archlab.inbox.InvalidArgumentException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Headers as the outbox stores them: a version byte, the count, then each name and value as a
 * length-prefixed UTF-8 string, names sorted so equal maps store equal bytes. No headers are stored
 * as SQL NULL. At most {@value #MAX_BYTES} bytes, the smallest column that holds them (a MariaDB
 * BLOB).
 */
final class HeaderCodec {

  static final int MAX_BYTES = 65_535;

  private static final int VERSION = 1;

  private HeaderCodec() {}

  /** Refuses headers that are null-valued or too large to store. */
  static void requireEncodable(Map<String, String> headers) {
    encode(headers);
  }

  /** The stored form, or null for no headers. */
  static byte[] encode(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeInt(headers.size());
      for (Map.Entry<String, String> e : new TreeMap<>(headers).entrySet()) {
        if (e.getKey().isEmpty()) {
          throw new InvalidArgumentException("outbox header names must not be empty");
        }
        writeString(out, e.getKey());
        writeString(out, e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (bytes.size() > MAX_BYTES) {
      throw new InvalidArgumentException(
          "outbox headers take " + bytes.size() + " bytes stored, at most " + MAX_BYTES);
    }
    return bytes.toByteArray();
  }

  /** The headers of a stored form; null is none. */
  static Map<String, String> decode(byte[] stored) {
    if (stored == null || stored.length == 0) {
      return Map.of();
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalStateException("outbox headers of unknown format version " + version);
      }
      int count = in.readInt();
      Map<String, String> out = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        out.put(readString(in), readString(in));
      }
      return Map.copyOf(out);
    } catch (IOException e) {
      throw new IllegalStateException("outbox headers are corrupt", e);
    }
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readString(DataInputStream in) throws IOException {
    byte[] utf8 = new byte[in.readInt()];
    in.readFully(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }
}
