def summarize(text: str | None = None, words: int = 10) -> str:
    return repr((text, words))
