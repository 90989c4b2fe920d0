package dev.archlab.inbox.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports on the loopback address, for the servers a test starts (a broker, a database, a
 * Redis node). The ports of one call are distinct: each is taken while the sockets of the others
 * are still open. Taking them one at a time lets the system hand the same port out twice, and a
 * server given one port for two listeners fails to start. Another process can still take a port
 * between this call and the server's bind; that is the limit of choosing ports in advance.
 */
public final class FreePorts {

  private FreePorts() {}

  /**
   * One free port.
   *
   * @return a port no socket was bound to when it was chosen
   * @throws IOException if no socket can be opened on the loopback address
   */
  public static int one() throws IOException {
    return distinct(1)[0];
  }

  /**
   * {@code count} distinct free ports.
   *
   * @param count how many ports
   * @return {@code count} ports, no two alike, none bound to a socket when chosen
   * @throws IOException if no socket can be opened on the loopback address
   * @throws IllegalArgumentException if {@code count} is not positive
   */
  public static int[] distinct(int count) throws IOException {
    if (count < 1) {
      throw new IllegalArgumentException("count must be >= 1, was " + count);
    }
    ServerSocket[] open = new ServerSocket[count];
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        open[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ports[i] = open[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : open) {
        if (s != null) {
          s.close();
        }
      }
    }
  }
}
