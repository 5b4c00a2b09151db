package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.schema.SchemaMigrations;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The tenant directory and the usage ledger: {@link PostgresTenantStore} and {@link PostgresUsageLedger} against a
 * real PostgreSQL with the product's migrations, and the in-memory ones the service's unit tests use, held to
 * the same answers.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class TenantStoreContractTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static void clean(EmbeddedPostgreSql postgres) throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            SchemaMigrations.applyPending(c);
            s.execute("TRUNCATE tenants, api_keys, usage_daily");
        }
    }

    private static Jdbc jdbc(EmbeddedPostgreSql postgres) {
        return new Jdbc(postgres.jdbcUrl(), EmbeddedPostgreSql.USER, "");
    }

    @Test
    void bothDirectoriesKeepTenantsAndKeysAlike(EmbeddedPostgreSql postgres) throws Exception {
        clean(postgres);
        try (TenantStore real = new PostgresTenantStore(jdbc(postgres))) {
            assertThat(story(real)).isEqualTo(story(new InMemoryTenantStore()));
        }
    }

    /** Every change a directory takes, and what its snapshots say after each, as text. */
    private static List<String> story(TenantStore store) throws Exception {
        long v0 = store.version();
        assertThat(store.createTenant("initech", new TenantStore.Quotas(10L, null, 5.0, null), T0)).isTrue();
        assertThat(store.createTenant("initech", TenantStore.Quotas.DEFAULTS, T0)).as("exists").isFalse();
        assertThat(store.version()).isGreaterThan(v0);
        TenantStore.Key a = new TenantStore.Key("key_a", "initech", "agent", Set.of(Scope.READ, Scope.WRITE), T0, null);
        TenantStore.Key b = new TenantStore.Key("key_b", "initech", "reader", Set.of(Scope.READ), T0.plusSeconds(1),
                T0.plusSeconds(3600));
        store.createKey(a, digest("a"), null);
        store.createKey(b, digest("b"), null);
        String afterKeys = snapshot(store);
        assertThat(store.updateTenant("initech", TenantStore.Status.SUSPENDED,
                new TenantStore.Quotas(null, 99L, null, 2.5))).isTrue();
        assertThat(store.updateTenant("nobody", null, TenantStore.Quotas.DEFAULTS)).isFalse();
        String afterUpdate = snapshot(store);
        TenantStore.Key c = new TenantStore.Key("key_c", "initech", "reader", Set.of(Scope.READ), T0.plusSeconds(2),
                T0.plusSeconds(3600));
        store.createKey(c, digest("c"), "key_b");
        assertThat(store.revokeKey("initech", "key_b", T0)).as("already revoked by the rotation").isFalse();
        assertThat(store.revokeKey("globex", "key_a", T0)).as("another tenant's").isFalse();
        String afterRotation = snapshot(store);
        assertThat(store.markDeleting("initech", "fgt-1", T0)).isEqualTo("fgt-1");
        assertThat(store.markDeleting("initech", "fgt-2", T0)).as("a retried deletion keeps its forget").isEqualTo("fgt-1");
        assertThat(store.markDeleting("filekeys", "fgt-3", T0)).as("a tenant only a key file knows").isEqualTo("fgt-3");
        assertThat(store.updateTenant("initech", TenantStore.Status.ACTIVE, TenantStore.Quotas.DEFAULTS))
                .as("a deleting tenant stays deleting").isFalse();
        return List.of(afterKeys, afterUpdate, afterRotation, snapshot(store));
    }

    private static String snapshot(TenantStore store) throws Exception {
        TenantStore.Snapshot s = store.load();
        assertThat(s.version()).isEqualTo(store.version());
        return s.tenants().values().stream().map(t -> t.tenantId() + " " + t.status() + " " + t.quotas() + " "
                + t.deletionForgetId()).toList() + " " + s.keysByDigest().entrySet().stream().map(e -> e.getKey()
                .substring(0, 8) + "=" + e.getValue().keyId() + " " + e.getValue().name() + " " + Scope.labels(e.getValue()
                .scopes()) + " " + e.getValue().createdAt() + " " + e.getValue().expiresAt()).toList();
    }

    private static byte[] digest(String secret) {
        return ApiKeys.digest(secret);
    }

    @Test
    void bothLedgersAddUsageAlike(EmbeddedPostgreSql postgres) throws Exception {
        clean(postgres);
        try (UsageLedger real = new PostgresUsageLedger(jdbc(postgres))) {
            assertThat(usage(real)).isEqualTo(usage(new InMemoryUsageLedger()));
        }
    }

    private static List<String> usage(UsageLedger ledger) throws Exception {
        LocalDate d1 = LocalDate.parse("2026-03-01");
        LocalDate d2 = d1.plusDays(1);
        List<UsageLedger.Usage> totals = ledger.add(List.of(new UsageLedger.Usage("acme", d1, 3, 30, 1, 2, 1, 0, 7),
                new UsageLedger.Usage("globex", d1, 1, 5, 1, 0, 0, 0, 0)));
        List<UsageLedger.Usage> more = ledger.add(List.of(new UsageLedger.Usage("acme", d1, 2, 20, 1, 1, 0, 1, 3),
                new UsageLedger.Usage("acme", d2, 1, 1, 1, 0, 0, 0, 0)));
        assertThat(more.get(0)).isEqualTo(new UsageLedger.Usage("acme", d1, 5, 50, 2, 3, 1, 1, 10));
        return List.of(totals.toString(), more.toString(), ledger.rows("acme", d1, d2).toString(),
                ledger.rows(null, d1, d1).toString(), ledger.rows("acme", d2, d2).toString());
    }
}
