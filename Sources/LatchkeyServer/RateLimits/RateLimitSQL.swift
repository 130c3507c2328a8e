import LatchkeyDatabase

/// The shared rate limit's statements (PostgreSQL only: SQLite has one instance, whose buckets are in memory).
extension SQL {
    /// Takes up to $3 whole tokens from client $1's bucket of $2 requests per minute (PostgreSQL only):
    /// `granted` is how many it got (0 when not even one was there; `tokens` then says how far off the
    /// next one is). The bucket refills by the database's clock, so instances whose clocks disagree still
    /// share one bucket; the row's lock serializes concurrent takers from every instance.
    static let takeRateTokens = StoreStatement("""
        INSERT INTO rate_limits AS r (client, tokens, admitted, granted, updated_at)
            VALUES ($1, $2::float8 - least($3::float8, $2::float8), true, least($3::float8, $2::float8), now())
        ON CONFLICT (client) DO UPDATE SET
            granted = least($3::float8, floor(least($2::float8, r.tokens + greatest(0, extract(epoch FROM now() - r.updated_at)::float8) * $2::float8 / 60))),
            tokens = least($2::float8, r.tokens + greatest(0, extract(epoch FROM now() - r.updated_at)::float8) * $2::float8 / 60) - least($3::float8, floor(least($2::float8, r.tokens + greatest(0, extract(epoch FROM now() - r.updated_at)::float8) * $2::float8 / 60))),
            admitted = least($2::float8, r.tokens + greatest(0, extract(epoch FROM now() - r.updated_at)::float8) * $2::float8 / 60) >= 1,
            updated_at = greatest(r.updated_at, now())
        RETURNING granted, tokens
        """)
    /// Buckets untouched for a minute are full again, as good as absent (PostgreSQL only).
    static let purgeRateLimits = StoreStatement("DELETE FROM rate_limits WHERE updated_at < now() - interval '60 seconds'")
}
