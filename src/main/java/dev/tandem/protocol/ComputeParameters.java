package dev.tandem.protocol;

/** Replica-wide parameters; a null field means "unset: keep the current value". */
public record ComputeParameters(Long maxResultRows) {

    public static final ComputeParameters UNSET = new ComputeParameters(null);
    public static final ComputeParameters DEFAULTS = new ComputeParameters(100_000L);

    /** These parameters with every unset field taken from {@code base}. */
    public ComputeParameters over(ComputeParameters base) {
        return new ComputeParameters(maxResultRows != null ? maxResultRows : base.maxResultRows);
    }
}
