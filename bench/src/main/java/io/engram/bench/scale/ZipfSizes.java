package io.engram.bench.scale;

/**
 * How many records each of N tenants holds when their sizes follow a Zipf law: tenant i (1-based, largest first)
 * holds about {@code largest / i^s}, with the exponent s chosen so that the sizes add up to the total. At 1,000
 * tenants, a million records and a largest tenant of 100,000, s ≈ 0.91: the median tenant holds ~350 records and
 * the smallest ~190.
 */
public final class ZipfSizes {

    private ZipfSizes() {
    }

    /** Sizes, largest first, summing to {@code total}, the first exactly {@code largest}, none below one. */
    public static int[] of(int tenants, long total, int largest) {
        if (tenants < 1 || largest < 1) {
            throw new IllegalArgumentException("tenants and the largest tenant's records must be positive");
        }
        if (total < largest + (tenants - 1L) || total > (long) tenants * largest) {
            throw new IllegalArgumentException(String.format("%,d records cannot be shared by %,d tenants with the"
                    + " largest holding %,d: give between %,d and %,d records", total, tenants, largest,
                    largest + (tenants - 1L), (long) tenants * largest));
        }
        double s = exponent(tenants, total, largest);
        int[] sizes = new int[tenants];
        long sum = 0;
        for (int i = 0; i < tenants; i++) {
            sizes[i] = i == 0 ? largest : (int) Math.max(1, Math.min(largest, Math.floor(largest / Math.pow(i + 1, s))));
            sum += sizes[i];
        }
        // rounding left a few records over or short: spread them over the tenants after the largest, in turn
        for (int i = 1; sum != total && tenants > 1; i = i % (tenants - 1) + 1) {
            int step = sum < total ? 1 : -1;
            if (sizes[i] + step >= 1 && sizes[i] + step <= largest) {
                sizes[i] += step;
                sum += step;
            }
        }
        return sizes;
    }

    /** The s at which {@code sum over i of largest / i^s} is {@code total} (bisection: the sum falls as s grows). */
    static double exponent(int tenants, long total, int largest) {
        double low = 0;
        double high = 20;
        for (int round = 0; round < 100; round++) {
            double mid = (low + high) / 2;
            double sum = 0;
            for (int i = 1; i <= tenants; i++) {
                sum += Math.max(1, largest / Math.pow(i, mid));
            }
            if (sum > total) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return (low + high) / 2;
    }
}
