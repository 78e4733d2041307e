"""Pure statistics on frames: correlations, calibration, error types, ensembles, summaries."""
