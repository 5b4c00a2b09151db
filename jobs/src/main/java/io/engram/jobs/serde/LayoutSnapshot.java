package io.engram.jobs.serde;

import java.io.IOException;
import java.lang.reflect.Constructor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What a savepoint keeps of a {@link LayoutSerializer}: its class and layout version. Restoring with the same
 * class and version is compatible as is; the same class in an earlier layout it still reads
 * ({@link LayoutSerializer#readingLayout}) is migrated; anything else is refused rather than misread.
 */
public final class LayoutSnapshot<T> implements TypeSerializerSnapshot<T> {

    private static final int FORMAT = 1;

    private Class<?> serializerClass;
    private int layoutVersion;

    /** For Flink, which reads a snapshot into a new instance. */
    public LayoutSnapshot() {
    }

    LayoutSnapshot(LayoutSerializer<T> serializer) {
        this.serializerClass = serializer.getClass();
        this.layoutVersion = serializer.layoutVersion();
    }

    @Override
    public int getCurrentVersion() {
        return FORMAT;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        out.writeUTF(serializerClass.getName());
        out.writeInt(layoutVersion);
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        String name = in.readUTF();
        try {
            serializerClass = Class.forName(name, false, classLoader);
        } catch (ClassNotFoundException e) {
            throw new IOException("the savepoint's serializer " + name + " is not on the classpath", e);
        }
        layoutVersion = in.readInt();
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializer<T> restoreSerializer() {
        try {
            Constructor<?> constructor = serializerClass.getDeclaredConstructor();
            constructor.setAccessible(true);
            LayoutSerializer<T> current = (LayoutSerializer<T>) constructor.newInstance();
            if (current.layoutVersion() == layoutVersion) {
                return current;
            }
            LayoutSerializer<T> earlier = current.readingLayout(layoutVersion);
            if (earlier == null) {
                throw new IllegalStateException(serializerClass.getName() + " does not read layout " + layoutVersion);
            }
            return earlier;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot restore serializer " + serializerClass.getName(), e);
        }
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> old) {
        if (!(old instanceof LayoutSnapshot<?> before) || before.serializerClass != serializerClass) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        if (before.layoutVersion == layoutVersion) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return before.layoutVersion < layoutVersion && readsLayout(before.layoutVersion)
                ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
                : TypeSerializerSchemaCompatibility.incompatible();
    }

    private boolean readsLayout(int version) {
        LayoutSnapshot<?> earlier = new LayoutSnapshot<>();
        earlier.serializerClass = serializerClass;
        earlier.layoutVersion = version;
        try {
            earlier.restoreSerializer();
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }
}
