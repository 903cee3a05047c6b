"""Reference tables of the benchmark suite (mopt.suite): one CSV per instance, made by
experiments/suite_fronts.py."""
