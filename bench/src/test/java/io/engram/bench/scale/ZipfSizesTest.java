package io.engram.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ZipfSizesTest {

    @Test
    void aThousandTenantsShareAMillionRecordsWithTheLargestHoldingAHundredThousandAndMostAFewHundred() {
        int[] sizes = ZipfSizes.of(1_000, 1_000_000, 100_000);
        assertThat(sizes).hasSize(1_000);
        assertThat(Arrays.stream(sizes).asLongStream().sum()).isEqualTo(1_000_000);
        assertThat(sizes[0]).isEqualTo(100_000);
        assertThat(Arrays.stream(sizes).max().orElseThrow()).isEqualTo(100_000);
        assertThat(Arrays.stream(sizes).sorted().toArray()[500]).as("the median").isBetween(200, 600);
        assertThat(sizes[999]).isBetween(100, 400);
        for (int i = 1; i < sizes.length; i++) {
            assertThat(sizes[i]).isLessThanOrEqualTo(sizes[i - 1] + 1); // falling, but for the rounding's one record
        }
    }

    @Test
    void theSmokeTestsSizesAddUpToo() {
        int[] sizes = ZipfSizes.of(50, 10_000, 1_500);
        assertThat(Arrays.stream(sizes).sum()).isEqualTo(10_000);
        assertThat(sizes[0]).isEqualTo(1_500);
        assertThat(Arrays.stream(sizes).min().orElseThrow()).isPositive();
    }

    @Test
    void sizesThatCannotAddUpAreRefusedWithTheRangeThatCan() {
        assertThatThrownBy(() -> ZipfSizes.of(10, 1_000_000, 1_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give between 1,009 and 10,000 records");
    }
}
