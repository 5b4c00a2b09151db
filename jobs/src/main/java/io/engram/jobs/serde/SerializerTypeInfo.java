package io.engram.jobs.serde;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The type of a stream whose records one given serializer writes: how a typed seam between operators is
 * declared ({@code transform(name, SerializerTypeInfo.of(…), operator)}), never Kryo and never JSON text.
 */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final TypeSerializer<T> serializer;

    private SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
        this.type = type;
        this.serializer = serializer;
    }

    public static <T> SerializerTypeInfo<T> of(Class<T> type, TypeSerializer<T> serializer) {
        return new SerializerTypeInfo<>(type, serializer);
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.duplicate();
    }

    @Override
    public String toString() {
        return type.getSimpleName() + " via " + serializer.getClass().getSimpleName();
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof SerializerTypeInfo<?> other && other.type == type && other.serializer.equals(serializer);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, serializer);
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof SerializerTypeInfo<?>;
    }
}
