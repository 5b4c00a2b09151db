package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VectorJsonTest {

    /** Unit-vector components, and the extremes: subnormals, the largest float, negative zero. */
    private static float[] floats() {
        SplittableRandom random = new SplittableRandom(7);
        float[] values = new float[200_000];
        for (int i = 0; i < values.length - 6; i++) {
            values[i] = i % 2 == 0
                    ? (float) (random.nextGaussian() / Math.sqrt(384))
                    : Float.intBitsToFloat(random.nextInt());
            if (!Float.isFinite(values[i])) {
                values[i] = 0.5f;
            }
        }
        values[values.length - 6] = Float.MIN_VALUE;
        values[values.length - 5] = Float.MIN_NORMAL;
        values[values.length - 4] = Float.MAX_VALUE;
        values[values.length - 3] = -0.0f;
        values[values.length - 2] = 1e-8f;
        values[values.length - 1] = 0.1f;
        return values;
    }

    @Test
    void everyFloatReadsBackToTheSameBitsThroughItAndThroughAPlainMapper() throws Exception {
        float[] values = floats();
        List<Float> boxed = new ArrayList<>();
        for (float v : values) {
            boxed.add(v);
        }
        // as the store writes a record: a map holding the vector as a list of floats
        String json = VectorJson.MAPPER.writeValueAsString(Map.of("embedding", boxed));

        for (ObjectMapper reader : List.of(VectorJson.MAPPER, new ObjectMapper())) {
            JsonNode read = reader.readTree(json).path("embedding");
            assertThat(read.size()).isEqualTo(values.length);
            for (int i = 0; i < values.length; i++) {
                assertThat(Float.floatToIntBits((float) read.get(i).asDouble()))
                        .as("float %d (%s) read back by %s", i, values[i], reader == VectorJson.MAPPER ? "VectorJson" : "a plain mapper")
                        .isEqualTo(Float.floatToIntBits(values[i]));
            }
        }
    }

    @Test
    void floatsInATreeAreWrittenAsShortAsTheyRead() throws Exception {
        ArrayNode tree = VectorJson.MAPPER.createArrayNode().add(0.1f).add(-0.0123f).add(1e-8f);
        assertThat(VectorJson.MAPPER.writeValueAsString(tree)).isEqualTo("[0.1,-0.0123,1.0E-8]");
    }
}
