"""Shell completion of provider ids, storage class ids and PROVIDER:CLASS pairs from the shipped
price tables (`planner --install-completion` installs it for the current shell)."""

from __future__ import annotations

import typer


def _providers() -> list[str]:
    from planner.pricing.catalog import providers

    return providers()


def _classes(provider: str | None) -> list[str]:
    from planner.pricing.catalog import storage_classes

    chosen = [provider] if provider in _providers() else _providers()
    seen: dict[str, None] = {}
    for p in chosen:
        seen.update(dict.fromkeys(storage_classes(p)))
    return list(seen)


def provider(incomplete: str) -> list[str]:
    return [p for p in _providers() if p.startswith(incomplete)]


def storage_class(ctx: typer.Context, incomplete: str) -> list[str]:
    """Classes of the provider already on the command line (``-p``), else of every provider."""
    chosen = ctx.params.get("provider")
    return [c for c in _classes(chosen if isinstance(chosen, str) else None) if c.startswith(incomplete)]


def endpoint(incomplete: str) -> list[str]:
    """``PROVIDER`` or ``PROVIDER:CLASS`` (migrate's --from and --to)."""
    name, colon, _ = incomplete.partition(":")
    if not colon:
        return [p for p in _providers() if p.startswith(incomplete)]
    return [f"{name}:{c}" for c in _classes(name) if f"{name}:{c}".startswith(incomplete)]
