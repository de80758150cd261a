# The mongobench image: one static binary (CGO_ENABLED=0) on a distroless
# base, nothing else. Reproducible: pinned Go and base images, -trimpath,
# no VCS stamping, the version given as a build argument.
#
#   docker build --build-arg VERSION=$(git describe --always) -t REGISTRY/mongobench:TAG .
ARG GO_IMAGE=golang:1.26.8-bookworm
ARG BASE_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
COPY templates ./templates
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X github.com/mongobench/mongobench/internal/cli.Version=${VERSION}" \
      -o /out/mongobench ./cmd/mongobench

FROM ${BASE_IMAGE}
COPY --from=build /out/mongobench /mongobench
USER nonroot
WORKDIR /tmp
ENTRYPOINT ["/mongobench"]
