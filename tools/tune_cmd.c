int coalesce_tune_dummy;
