"""Reading the store into frames: queries, pair matrices, expert targets, clinicians' ratings."""
