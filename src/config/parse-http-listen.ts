import type { HttpListen } from "../config.ts";
import { invalidOption } from "./invalid-option.ts";

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

function isLoopback(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "localhost" || lower === "::1" || IPV4.exec(lower)?.[1] === "127";
}

/** `PORT`, `HOST:PORT` or `[IPV6]:PORT`; `localhost` binds 127.0.0.1 so the address is definite. */
export function parseHttpListen(raw: string): HttpListen {
  const match = /^(?:(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):)?(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw invalidOption("--http takes PORT, HOST:PORT or [IPV6]:PORT, with PORT from 0 to 65535");
  }
  const ipv6 = match[1];
  let host = ipv6 ?? match[2] ?? "127.0.0.1";
  const ipv4 = IPV4.exec(host);
  if (ipv4?.slice(1).some((part) => Number(part) > 255)) {
    throw invalidOption("--http has an IPv4 address with a part above 255");
  }
  if (ipv6 === undefined && !ipv4 && !HOST_NAME.test(host)) {
    throw invalidOption("--http has a host that is neither an IP address nor a host name");
  }
  if (host.toLowerCase() === "localhost") host = "127.0.0.1";
  return { host, port, loopback: isLoopback(host) };
}
