"""Write deploy/nginx-radconcord.conf with your port, certificate, key and the dashboard's address.

    python deploy/render_nginx.py --listen 443 --cert /etc/ssl/radconcord.crt --key /etc/ssl/radconcord.key \
        --upstream 127.0.0.1:8501 > /etc/nginx/sites-enabled/radconcord.conf
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TEMPLATE = Path(__file__).with_name("nginx-radconcord.conf")


def render(listen: str, cert: str, key: str, upstream: str) -> str:
    text = TEMPLATE.read_text(encoding="utf-8")
    for name, value in (("LISTEN", listen), ("CERT", cert), ("KEY", key), ("UPSTREAM", upstream)):
        if any(c in value for c in ";{}\n\"' "):
            raise ValueError(f"--{name.lower()} {value!r}: no spaces, quotes, braces or semicolons")
        text = text.replace("{" + name + "}", value)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listen", required=True, help="port (or address:port) nginx listens on, with TLS")
    ap.add_argument("--cert", required=True, help="the TLS certificate (PEM, full chain)")
    ap.add_argument("--key", required=True, help="its private key (PEM)")
    ap.add_argument("--upstream", default="127.0.0.1:8501", help="where `make serve` listens (default %(default)s)")
    args = ap.parse_args(argv)
    try:
        sys.stdout.write(render(args.listen, args.cert, args.key, args.upstream))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
