"""The multi-head checks: ``split_merge`` (split_heads, merge_heads) and ``multi_head_attention``."""
