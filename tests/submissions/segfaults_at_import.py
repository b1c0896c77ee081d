"""Dereferences a null pointer while being imported."""
import ctypes

ctypes.string_at(0)
