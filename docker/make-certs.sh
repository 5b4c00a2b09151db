#!/bin/sh
# Makes the compose cluster's own certificate authority and Kafka's TLS key store, once, into /certs (a volume).
# The stores' password is KAFKA_PASSWORD, which `docker compose up` takes from the caller's environment.
set -eu
cd /certs
if [ -f kafka.p12 ]; then
  exit 0
fi
keytool=/opt/java/openjdk/bin/keytool
"$keytool" -genkeypair -alias ca -dname "CN=engram compose CA" -ext bc:c -keyalg RSA -validity 3650 \
  -keystore ca.p12 -storetype PKCS12 -storepass "$KAFKA_PASSWORD"
"$keytool" -exportcert -rfc -alias ca -keystore ca.p12 -storepass "$KAFKA_PASSWORD" -file ca.pem
"$keytool" -genkeypair -alias kafka -dname "CN=kafka" -keyalg RSA -validity 3650 \
  -keystore kafka.p12 -storetype PKCS12 -storepass "$KAFKA_PASSWORD"
"$keytool" -certreq -alias kafka -keystore kafka.p12 -storepass "$KAFKA_PASSWORD" \
  | "$keytool" -gencert -rfc -alias ca -keystore ca.p12 -storepass "$KAFKA_PASSWORD" -ext SAN=dns:kafka -validity 3650 \
  > kafka.pem
"$keytool" -importcert -noprompt -alias ca -file ca.pem -keystore kafka.p12 -storepass "$KAFKA_PASSWORD"
"$keytool" -importcert -alias kafka -file kafka.pem -keystore kafka.p12 -storepass "$KAFKA_PASSWORD"
"$keytool" -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 -storetype PKCS12 \
  -storepass "$KAFKA_PASSWORD"
rm ca.p12 # the CA's key is not needed again
chmod 644 kafka.p12 truststore.p12 ca.pem
