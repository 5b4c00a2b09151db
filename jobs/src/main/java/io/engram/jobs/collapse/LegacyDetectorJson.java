package io.engram.jobs.collapse;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.jobs.serde.LegacyJson;
import io.engram.model.collapse.CanarySet;
import io.engram.model.retrieval.RecordType;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The detector's canary set as JSON, the layout of its keyed state before it was typed
 * ({@link DetectorSerializers}). Only read: a savepoint taken before then restores each tenant's set through
 * here once (docs/operations.md, "Upgrades"). History rows of that time are {@link io.engram.model.collapse.CycleRows}.
 */
final class LegacyDetectorJson {

    private LegacyDetectorJson() {
    }

    static CanarySet canarySet(String json) {
        JsonNode o = LegacyJson.read(json, "canary set");
        List<CanarySet.Canary> list = new ArrayList<>();
        for (JsonNode c : o.path("canaries")) {
            list.add(new CanarySet.Canary(c.get("id").asText(), c.get("anchor").asText(),
                    RecordType.ofLabel(c.get("type").asText()), c.get("query").asText()));
        }
        return new CanarySet(o.get("id").asText(), list);
    }

    /** The canary set as state written before it was typed (JSON text). */
    static ValueStateDescriptor<String> canariesDescriptor() {
        return new ValueStateDescriptor<>("canary-set", Types.STRING);
    }

    /** The history window as state written before it was typed (column-named JSON rows). */
    static ListStateDescriptor<String> historyDescriptor() {
        return new ListStateDescriptor<>("cycle-history", Types.STRING);
    }
}
