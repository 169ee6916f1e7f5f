"""Versioned price tables for object storage providers and the engine that bills usage."""
