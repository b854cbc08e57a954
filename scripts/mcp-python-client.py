#!/usr/bin/env python3
"""An independent MCP client (the official Python SDK, `pip install mcp`) against the service.

Usage: mcp-python-client.py <base_url> <image file>
Connects keyless to <base_url>/mcp over Streamable HTTP, lists the tools and runs the free
image-only check (verify_image) on the file, passed inline. Prints one JSON object:
{"server": name, "tools": [{"name", "has_output_schema"}], "is_error": bool, "structured": {...}, "text": "..."}.
"""
import asyncio
import base64
import json
import os
import sys

from mcp import ClientSession

try:  # mcp 2.x
    from mcp.client.streamable_http import streamable_http_client as connect
except ImportError:  # mcp 1.x
    from mcp.client.streamable_http import streamablehttp_client as connect


def field(obj, snake: str, camel: str):
    """mcp 2.x names fields in snake_case, 1.x as on the wire."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


async def main(base_url: str, image_path: str) -> None:
    with open(image_path, "rb") as f:
        content = base64.b64encode(f.read()).decode("ascii")
    async with connect(f"{base_url}/mcp") as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            result = await session.call_tool(
                "verify_image",
                {"image": {"filename": os.path.basename(image_path), "content_base64": content}, "wait_seconds": 120},
            )
            print(json.dumps({
                "server": field(init, "server_info", "serverInfo").name,
                "tools": [{"name": t.name, "has_output_schema": field(t, "output_schema", "outputSchema") is not None} for t in listed.tools],
                "is_error": bool(field(result, "is_error", "isError")),
                "structured": field(result, "structured_content", "structuredContent"),
                "text": result.content[0].text if result.content else "",
            }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
