"""Durable judge jobs: every run (CLI or dashboard, model or offline) is a job recorded in the store.

:mod:`.spec` says what a job runs, :mod:`.table` keeps the ``jobs`` rows (state, progress, heartbeat,
cancel), :mod:`.worker` runs one, :mod:`.launch` starts a worker process that outlives the browser.
Leases and the answer journal belong to the judges (:mod:`core.judges.leases`,
:mod:`core.judges.journal`): any model run takes them, inside a job or not.
"""
