"""Getting data in: importers, published layouts (presets), the synthetic demo, injected errors."""
