def greet(name: str) -> str:
    """A small file for the filesystem server to find."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("MCP"))
