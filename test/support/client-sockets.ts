// This process's outgoing TCP sockets, by the port they are connected to. A test that restarts a
// server on the same port waits until fetch's pool (undici) has closed every keep-alive socket to
// the old one: a request written to a pooled socket whose FIN it has not read yet fails with
// "SocketError: other side closed" instead of reaching the new server.
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** Connected, not yet closed: socket → remote port. One registry per process (test files share it). */
const KEY = Symbol.for('mandate.test.clientSockets');
const registry = globalThis as { [KEY]?: Map<Socket, number> };

function open(): Map<Socket, number> {
  if (registry[KEY]) return registry[KEY];
  const sockets = new Map<Socket, number>();
  registry[KEY] = sockets;
  // Node publishes every client socket net.connect creates (diagnostics_channel, "net.client.socket").
  subscribe('net.client.socket', (message) => {
    const { socket } = message as { socket: Socket };
    socket.once('connect', () => sockets.set(socket, socket.remotePort ?? 0));
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

open();

/** Resolves once every socket this process had open to `port` has closed. */
export async function clientSocketsClosed(port: number): Promise<void> {
  const toPort = [...open()].filter(([, remote]) => remote === port).map(([socket]) => socket);
  await Promise.all(toPort.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
}
