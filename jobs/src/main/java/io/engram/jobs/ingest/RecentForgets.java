package io.engram.jobs.ingest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.BroadcastState;

/**
 * The forgets a keyed operator of turns keeps in broadcast state, by forget id, so that a turn a forget covers that
 * arrives after it is dropped: those of the last {@code ttl} before the newest.
 */
public final class RecentForgets {

    private RecentForgets() {
    }

    /** Keeps {@code forget}, and drops those older than {@code ttl} before it. */
    public static void remember(BroadcastState<String, ForgetEvent> forgets, ForgetEvent forget, Duration ttl)
            throws Exception {
        List<String> expired = new ArrayList<>();
        for (Map.Entry<String, ForgetEvent> f : forgets.entries()) {
            if (f.getValue().requestedAtMillis() < forget.requestedAtMillis() - ttl.toMillis()) {
                expired.add(f.getKey());
            }
        }
        for (String id : expired) {
            forgets.remove(id);
        }
        forgets.put(forget.forgetId(), forget);
    }
}
